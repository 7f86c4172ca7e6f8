import type { Argv, CommandModule } from 'yargs';
import { NothingSentError } from '../errors.js';
import { ExpansionInterruptedError } from '../input/errors.js';
import type { RunFlags } from '../job/config.js';
import type { LoadedJob } from '../job/job-file.js';
import { flagOptions } from '../job/options.js';
import type { Redactor } from '../record/redactor.js';
import type { LogKind } from '../run/run-options.js';
import type { RunningSimulator } from '../simulator/server.js';
import { diskFailureOf } from '../state/write-failed.js';
import { EXIT, EXIT_CODES_HELP } from './exit-codes.js';
import { groupRunHelp } from './help-groups.js';
import { reportInternalError } from './internal-error.js';
import { listenForInterrupts } from './interrupts.js';
import type { CliIo, CliSession } from './io.js';
import { jsonLogLine, LOG_FORMATS, type LogFormat, messageLine, startFields } from './log-format.js';
import { flagsFromArgs, yargsOption } from './options.js';
import { paramsFromFlags } from './param-flags.js';
import type { ProgressReporter } from './progress.js';
import { namesStandardInput, STANDARD_INPUT_REFUSAL } from './standard-input.js';
import { terminalSafe } from './terminal-safe.js';

/** The command line: the run settings of the option table, and what only the CLI does. */
interface RunArgs extends Record<string, unknown> {
  inputs?: string[];
  job?: string;
  simulate?: boolean;
  quiet?: boolean;
  'dry-run'?: boolean;
  'log-format'?: LogFormat;
  /** `--param NAME=VALUE`, parsed (param-flags.ts). */
  param?: Record<string, unknown>;
}

export const runCommand = (session: CliSession): CommandModule<object, RunArgs> => ({
  command: 'run [inputs..]',
  describe: 'Send every row of the input files to the endpoint; write output.jsonl, errors.jsonl and manifest.json',
  builder: (yargs: Argv) => {
    // yargs lays out a command's whole help after running it, to keep it: on a command line that
    // cannot ask for help the options are hidden (they parse and check as before) and there are no
    // groups, examples or epilog, so there is nothing to lay out.
    const hidden = !session.helpAsked;
    const built = (session.helpAsked ? groupRunHelp(yargs) : yargs)
      .positional('inputs', { type: 'string', array: true, describe: 'Input files or glob patterns (JSONL, CSV, Parquet); quote globs' })
      .option('job', { type: 'string', hidden, describe: 'JSON job file; flags override it' })
      .options(Object.fromEntries(flagOptions().map(([, spec]) => [spec.flag, { ...yargsOption(spec), hidden }])))
      .option('simulate', { type: 'boolean', hidden, describe: 'Start the built-in simulator and send to it (replies are simulated)' })
      .option('quiet', { type: 'boolean', hidden, describe: 'No progress output' })
      .option('dry-run', { type: 'boolean', hidden, describe: 'Read and check every row, build every request, send nothing' })
      .option('log-format', {
        choices: LOG_FORMATS,
        hidden,
        describe: 'stderr as text (default) or json: one JSON object a line, each with an ISO time, the summary last',
      })
      .option('param', {
        type: 'string',
        requiresArg: true,
        coerce: paramsFromFlags,
        hidden,
        describe:
          "Request parameter NAME=VALUE, sent as given, e.g. temperature=0.2, seed=42, top_k=40 (repeatable; VALUE as JSON when it parses, else text); over the job's params",
      });
    return (session.helpAsked ? runHelpExtras(built) : built) as unknown as Argv<RunArgs>;
  },
  handler: async (args) => {
    session.exitCode = await runFromCli(args, session);
  },
});

/** `run --help`'s examples and epilog. */
function runHelpExtras(yargs: Argv): Argv {
  return yargs
    .example('$0 run prompts.jsonl --base-url https://api.example.com/v1 --model my-model --out out/today', 'Run a JSONL file')
    .example(
      "$0 run 'data/*.csv' --template 'Summarise: {{text}}' --job jobs/enrich-products.json",
      'Run a glob of CSV files with a template',
    )
    .example('$0 run --job jobs/quickstart.json --simulate', 'Try it against the built-in simulator')
    .example(
      '$0 run products.parquet --template "Describe {{name}}" --base-url URL --model NAME --limit 10',
      'Try the first 10 rows of a Parquet table',
    )
    .example('$0 run --job jobs/enrich-products.json --out out/2026-11-22 --resume', 'Resume an interrupted run')
    .example(
      "$0 run in.jsonl --base-url https://api.portkey.ai/v1 --header 'x-portkey-provider: openai' --header 'x-portkey-api-key: ${PORTKEY_API_KEY}' ...",
      'Send through a gateway',
    )
    .epilog(
      `Tokens in summaries and reports are the endpoint's own usage figures: its spec leaves usage unconfirmed, and billing to the provider's console.\n${EXIT_CODES_HELP}`,
    );
}

async function runFromCli(args: RunArgs, session: CliSession): Promise<number> {
  const { io, argv } = session;
  // Started once the run holds its lock (onLocked below); written as a cast so TypeScript does not take it for null after.
  let reporter = null as ProgressReporter | null;
  const format: LogFormat = args['log-format'] ?? 'text';
  // Made once the configuration holds, and handed to the run: its lines and the run's records are masked alike.
  let redactor: Redactor | null = null;
  const log = (line: string, kind?: LogKind): void => {
    const redacted = redactor ? redactor.redact(line) : line;
    const text = messageLine(format, format === 'json' ? redacted : terminalSafe(redacted), kind);
    if (reporter) reporter.writeLine(text.slice(0, -1));
    else io.stderr.write(text);
  };
  let simulator: RunningSimulator | null = null;
  try {
    if (namesStandardInput(argv, (option) => (args as Record<string, unknown>)[option])) {
      log(STANDARD_INPUT_REFUSAL, 'error');
      return EXIT.usage;
    }
    // The engine is loaded here, not at start-up: `--help` and the other commands have no use for it.
    const [{ resolveRunConfig }, { runRedactor }] = await Promise.all([import('../job/config.js'), import('../run/run-redactor.js')]);
    const job = args.job ? await (await import('../job/job-file.js')).loadJobFile(args.job) : null;
    if (args['dry-run']) return await dryRunFromCli(args, job, io);
    // Loaded only with --simulate: a run against an endpoint has no use for it.
    if (args.simulate) simulator = await (await import('../simulator/server.js')).startSimulator({});
    const config = resolveRunConfig(flagsFrom(args), job, {
      env: io.env,
      cwd: io.cwd,
      ...(simulator ? { simulatorUrl: simulator.url } : {}),
    });
    redactor = runRedactor(config);
    if (config.cacheDir) await (await import('../state/response-cache.js')).ResponseCache.check(config.cacheDir);
    const [{ runBatch }, { newProgress }, { startProgressReporter }, { sayHowItEnded }] = await Promise.all([
      import('../run/run.js'),
      import('../run/progress.js'),
      import('./progress.js'),
      import('./run-ending.js'),
    ]);

    const stop = new AbortController();
    let signals = 0;
    const onInterrupt = (name: string): void => {
      signals++;
      if (signals === 1) {
        log(`${name} received: finishing in-flight requests (press Ctrl-C again to stop at once)`);
        stop.abort();
      } else {
        log('stopped at once; the journal is consistent, resume with --resume', 'warning');
        io.exitNow?.(EXIT.interrupted);
      }
    };
    const stopListening = listenForInterrupts(io, onInterrupt);

    const progress = newProgress(performance.now());
    const runRedactsWith = redactor;
    // Once the output directory is locked: a second copy the lock refuses (exit 2) starts nothing.
    // So is the progress line: drawn below these, for a run that is this process's.
    const onLocked = (): void => {
      // The first line a log collector reads of a run: what it is, where to, by which version.
      if (format === 'json') io.stderr.write(jsonLogLine(startFields(config, runRedactsWith)));
      // Announced once the run is ours, so a refused one reads as a refusal only.
      if (simulator) log(`started the built-in simulator at ${simulator.url}: replies are SIMULATED, nothing leaves this machine`);
      reporter = args.quiet ? null : startProgressReporter(progress, io.stderr, io.env, format);
    };
    try {
      const report = await runBatch({ config, stop: stop.signal, log, progress, redactor, onLocked });
      reporter?.stop();
      return await sayHowItEnded(report, { session, config, redactor, format, simulated: simulator !== null, log });
    } finally {
      reporter?.stop();
      stopListening();
    }
  } catch (error) {
    if (error instanceof NothingSentError) {
      log(error.explain(), 'error');
      return EXIT.usage;
    }
    if (error instanceof ExpansionInterruptedError) {
      log(error.message, 'warning');
      return EXIT.interrupted;
    }
    const writeFailure = diskFailureOf(error);
    if (writeFailure) {
      log(writeFailure.explain('rerun with --resume'), 'error');
      return EXIT.writeFailed;
    }
    await reportInternalError(error, { resumable: true, argv, stderr: io.stderr, env: io.env, redactor });
    return EXIT.internalError;
  } finally {
    await simulator?.close();
  }
}

/** `run --dry-run`: reads and checks every row, builds every request, sends nothing. */
async function dryRunFromCli(args: RunArgs, job: LoadedJob | null, io: CliIo): Promise<number> {
  const [{ resolveRunConfig, SIMULATOR_BASE_URL }, { runRedactor }, { dryRun }, { formatDryRun }] = await Promise.all([
    import('../job/config.js'),
    import('../run/run-redactor.js'),
    import('../run/dry-run.js'),
    import('./dry-run-report.js'),
  ]);
  // A dry run sends nothing: --simulate starts no server, it only names the endpoint.
  const simulated = args.simulate ? { simulatorUrl: SIMULATOR_BASE_URL } : {};
  const config = resolveRunConfig(flagsFrom(args), job, { env: io.env, cwd: io.cwd, dryRun: true, ...simulated });
  const report = await dryRun(config, { maxListed: 50, assumedLatencyMs: 2000 });
  // The report shows what the user gave (headers, the first body): a secret among it is masked by its value.
  io.stdout.write(runRedactor(config).redact(formatDryRun(report, config)));
  return report.invalidCount > 0 ? EXIT.rowsFailed : EXIT.ok;
}

function flagsFrom(args: RunArgs): RunFlags {
  const flags = flagsFromArgs(args, args.inputs ?? []);
  return args.param === undefined ? flags : { ...flags, params: args.param };
}
