import type { Argv, CommandModule } from 'yargs';
import { EXIT } from './exit-codes.js';
import type { CliSession } from './io.js';
import { nonNegativeInteger } from './options.js';

interface ValidateArgs {
  job: string;
  'max-problems'?: number;
}

export const validateCommand = (session: CliSession): CommandModule<object, ValidateArgs> => ({
  command: 'validate <job>',
  describe: 'Check a job file and every row of its inputs without sending anything',
  builder: (yargs: Argv) =>
    yargs
      .positional('job', { type: 'string', demandOption: true, describe: 'The job file' })
      .option('max-problems', {
        type: 'string',
        coerce: nonNegativeInteger('max-problems'),
        describe: 'Most row problems to list (default 50)',
      })
      .example('$0 validate jobs/enrich-products.json', 'Check a job before a nightly run') as unknown as Argv<ValidateArgs>,
  handler: async (args) => {
    // Loaded here, not at start-up: every other command would pay for it.
    const { validateJob } = await import('../run/validate-job.js');
    const { lines, ok } = await validateJob(args.job, args['max-problems'] ?? 50);
    for (const line of lines) session.io.stdout.write(`${line}\n`);
    session.exitCode = ok ? EXIT.ok : EXIT.usage;
  },
});
