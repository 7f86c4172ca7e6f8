import yargs from 'yargs';
import { TOOL_VERSION } from '../http/tool-version.js';
import { diskFailureOf } from '../state/write-failed.js';
import { EXIT, EXIT_CODES_HELP } from './exit-codes.js';
import { reportInternalError } from './internal-error.js';
import type { CliIo, CliSession } from './io.js';
import { logFormatOf, messageLine } from './log-format.js';
import { mergeCommand } from './merge.js';
import { reportCommand } from './report.js';
import { runCommand } from './run.js';
import { schemaCommand } from './schema.js';
import { simulateCommand } from './simulate.js';
import { knownFlags, withFlagHints } from './unknown-flags.js';
import { validateCommand } from './validate.js';

/** A usage error already written to stderr: the command ends with exit 2 (the contract), nothing run. */
class UsageFailure extends Error {}

/**
 * The whole command line, in process: `argv` is what follows the script name. Writes only to
 * `io`'s streams and resolves to the exit code; it never exits the process (main.ts does).
 * citty's `runMain(cmd, { rawArgs })` is the model.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const session: CliSession = { io, argv, helpAsked: mayAskForHelp(argv), exitCode: EXIT.ok };
  let yargsOutput = '';
  try {
    // With a callback yargs hands over what it would print (help, version) and never exits.
    await program(session).parseAsync([...argv], {}, (_error: unknown, _parsed: unknown, output: string) => {
      yargsOutput = output;
    });
    if (yargsOutput) io.stdout.write(`${yargsOutput}\n`);
    return session.exitCode;
  } catch (error) {
    if (error instanceof UsageFailure) return EXIT.usage;
    // A disk that refuses a write (merge, report --html) gets one line and exit 5, not a stack trace.
    const writeFailure = diskFailureOf(error);
    if (writeFailure) {
      io.stderr.write(`chatbatch: ${writeFailure.explain('run the command again')}\n`);
      return EXIT.writeFailed;
    }
    await reportInternalError(error, { resumable: argv[0] === 'run', argv, stderr: io.stderr, env: io.env });
    return EXIT.internalError;
  }
}

function program(session: CliSession) {
  const { io, argv } = session;
  return (
    yargs()
      .scriptName('chatbatch')
      .usage('$0 <command> [options]\n\nBatch processor for OpenAI-compatible chat-completion endpoints.')
      .command(runCommand(session))
      .command(validateCommand(session))
      .command(reportCommand(session))
      .command(simulateCommand(session))
      .command(mergeCommand(session))
      .command(schemaCommand(session))
      .example('$0 run --job jobs/quickstart.json --simulate', 'try it against the built-in simulator: no key, no network')
      .example(
        "$0 run 'data/*.jsonl' --base-url URL --model NAME --out out/today",
        'a real endpoint; the key is read from CHATBATCH_API_KEY',
      )
      .example('$0 validate jobs/enrich-products.json', 'check a job file and every row of its inputs, sending nothing')
      .example('$0 report out/today --html report.html', 'summarise a finished run')
      .epilog(
        `Settings come from flags, then the environment (CHATBATCH_BASE_URL, the key variable), then the job file.\n${EXIT_CODES_HELP}`,
      )
      .strict()
      .demandCommand(1, 'Name a command: run, validate, report, merge, simulate, schema.')
      .recommendCommands()
      .help()
      .alias('help', 'h')
      // Named, not guessed: yargs looks for the package.json above its own folder, which in an
      // install is the host project's (`chatbatch --version` printed the host's version).
      .version(TOOL_VERSION)
      // yargs lays out a command's whole help on every run, to keep it (about a third of a small
      // run's CPU when wrapped to a width): only a command line that can ask for help pays for wrapping.
      .wrap(session.helpAsked ? Math.min(110, io.stdout.columns || 110) : null)
      // yargs' own words (Commands:, Options:, its errors) in English like the rest of the help, not
      // translated by LANG into a mix.
      .locale('en')
      // Usage errors are exit 2 (the contract), not yargs' default 1.
      .fail((message, error) => {
        if (error && !message) throw error;
        const hinted = withFlagHints(message ?? error?.message ?? '', knownFlags(argv[0]));
        io.stderr.write(messageLine(logFormatOf(argv), `${hinted}\nRun 'chatbatch --help' for usage.`, 'error'));
        throw new UsageFailure(hinted);
      })
  );
}

/** `--help`, or `-h` alone or among other one-letter flags (`-qh`); a false yes only costs the layout. */
function mayAskForHelp(argv: readonly string[]): boolean {
  return argv.some((arg) => arg.startsWith('--help') || /^-[^-]*h/.test(arg));
}
