#!/usr/bin/env node
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { TOOL_VERSION } from '../output/tool-version.js';
import { diskFailureOf } from '../output/write-failed.js';
import { EXIT, EXIT_CODES_HELP } from './exit-codes.js';
import { reportInternalError } from './internal-error.js';
import { logFormatOf, messageLine } from './log-format.js';
import { mergeCommand } from './merge.js';
import { reportCommand } from './report.js';
import { runCommand } from './run.js';
import { schemaCommand } from './schema.js';
import { simulateCommand } from './simulate.js';
import { knownFlags, withFlagHints } from './unknown-flags.js';
import { validateCommand } from './validate.js';

// The last resort: whatever escapes every command, even from a callback nothing awaits, ends in
// one line and its own exit code, never in a stack trace.
const resumable = hideBin(process.argv)[0] === 'run';
let crashing = false;
const lastResort = (error: unknown): void => {
  if (crashing) return;
  crashing = true;
  setTimeout(() => process.exit(EXIT.internalError), 5_000).unref(); // if marking the manifest hangs
  void reportInternalError(error, { resumable }).finally(() => process.exit(EXIT.internalError));
};
process.on('uncaughtException', lastResort);
// A reader that went away (`chatbatch run ... 2>&1 | head`) is no failure of the run: what it
// would have read is dropped, and the run ends with its own exit code.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') lastResort(error);
  });
}
process.on('unhandledRejection', lastResort);

const cli = yargs(hideBin(process.argv))
  .scriptName('chatbatch')
  .usage('$0 <command> [options]\n\nBatch processor for OpenAI-compatible chat-completion endpoints.')
  .command(runCommand)
  .command(validateCommand)
  .command(reportCommand)
  .command(simulateCommand)
  .command(mergeCommand)
  .command(schemaCommand)
  .example('$0 run --job jobs/quickstart.json --simulate', 'try it against the built-in simulator: no key, no network')
  .example("$0 run 'data/*.jsonl' --base-url URL --model NAME --out out/today", 'a real endpoint; the key is read from CHATBATCH_API_KEY')
  .example('$0 validate jobs/enrich-products.json', 'check a job file and every row of its inputs, sending nothing')
  .example('$0 report out/today --html report.html', 'summarise a finished run')
  .epilog(`Settings come from flags, then the environment (CHATBATCH_BASE_URL, the key variable), then the job file.\n${EXIT_CODES_HELP}`)
  .strict()
  .demandCommand(1, 'Name a command: run, validate, report, merge, simulate, schema.')
  .recommendCommands()
  .help()
  .alias('help', 'h')
  // Named, not guessed: yargs looks for the package.json above its own folder, which in an
  // install is the host project's (`chatbatch --version` printed the host's version).
  .version(TOOL_VERSION)
  .wrap(Math.min(110, process.stdout.columns || 110))
  // yargs' own words (Commands:, Options:, its errors) in English like the rest of the help, not
  // translated by LANG into a mix.
  .locale('en')
  // Usage errors are exit 2 (the contract), not yargs' default 1.
  .fail((message, error) => {
    if (error && !message) throw error;
    const hinted = withFlagHints(message ?? error?.message ?? '', knownFlags(hideBin(process.argv)[0]));
    process.stderr.write(messageLine(logFormatOf(process.argv), `${hinted}\nRun 'chatbatch --help' for usage.`, 'error'));
    process.exit(2);
  });

try {
  await cli.parseAsync();
} catch (error) {
  // A disk that refuses a write (merge, report --html) gets one line and exit 5, not a stack trace.
  const writeFailure = diskFailureOf(error);
  if (writeFailure) {
    process.stderr.write(`chatbatch: ${writeFailure.explain('run the command again')}\n`);
    process.exitCode = EXIT.writeFailed;
  } else {
    lastResort(error);
  }
}
