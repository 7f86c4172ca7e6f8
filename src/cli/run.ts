import type { Argv, CommandModule } from 'yargs';
import { NothingSentError } from '../errors.js';
import { ExpansionInterruptedError } from '../input/errors.js';
import { type RunFlags, resolveRunConfig, SIMULATOR_BASE_URL } from '../job/config.js';
import { loadJobFile } from '../job/job-file.js';
import { diskFailureOf } from '../output/write-failed.js';
import { redactSecrets, registerSecret } from '../record/redact.js';
import { dryRun } from '../run/dry-run.js';
import { newProgress } from '../run/progress.js';
import { runBatch } from '../run/run.js';
import { type RunningSimulator, startSimulator } from '../simulator/server.js';
import { ResponseCache } from '../state/response-cache.js';
import { budgetStopMessage } from './budget-stop.js';
import { formatDryRun } from './dry-run-report.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { reportInternalError } from './internal-error.js';
import { nonNegativeInteger, positiveInteger } from './options.js';
import { type ProgressReporter, startProgressReporter } from './progress.js';
import { namesStandardInput, STANDARD_INPUT_REFUSAL } from './standard-input.js';
import { formatSummary } from './summary.js';

interface RunArgs {
  inputs?: string[];
  job?: string;
  'base-url'?: string;
  model?: string;
  out?: string;
  'api-key-env'?: string;
  'api-key-file'?: string;
  header?: string | string[];
  'row-params'?: boolean;
  system?: string;
  template?: string;
  'id-field'?: string;
  concurrency?: number;
  'max-attempts'?: number;
  'timeout-ms'?: number;
  'row-deadline-ms'?: number;
  'max-retry-wait-ms'?: number;
  'grace-ms'?: number;
  'max-outage-ms'?: number;
  rpm?: number;
  tpm?: number;
  'max-total-tokens'?: number;
  resume?: boolean;
  'retry-failed'?: string[];
  force?: boolean;
  cache?: string;
  simulate?: boolean;
  quiet?: boolean;
  'dry-run'?: boolean;
  format?: string;
  shard?: string;
  repeat?: number;
  'escape-formulas'?: boolean;
  bom?: boolean;
  'reply-format'?: string;
  'reply-schema'?: string;
  'reply-retries'?: number;
}

export const runCommand: CommandModule<object, RunArgs> = {
  command: 'run [inputs..]',
  describe: 'Send every row of the input files to the endpoint; write output.jsonl, errors.jsonl and manifest.json',
  builder: (yargs: Argv) =>
    yargs
      .positional('inputs', { type: 'string', array: true, describe: 'Input files or glob patterns (JSONL, CSV); quote globs' })
      .option('job', { type: 'string', describe: 'JSON job file; flags override it' })
      .option('base-url', { type: 'string', describe: "Base URL from the provider's console (env CHATBATCH_BASE_URL)" })
      .option('model', { type: 'string', describe: "Model name exactly as the provider's console shows it" })
      .option('out', { type: 'string', describe: 'Output directory' })
      .option('api-key-env', { type: 'string', describe: 'Environment variable holding the API key (default CHATBATCH_API_KEY)' })
      .option('api-key-file', {
        type: 'string',
        describe: 'File holding the API key, e.g. a Docker or Kubernetes secret (env CHATBATCH_API_KEY_FILE)',
      })
      .option('header', {
        alias: 'H',
        type: 'string',
        requiresArg: true,
        describe: "Extra request header, curl's form 'Name: value' (repeatable); ${NAME} is filled from the environment, never written",
      })
      .option('row-params', {
        type: 'boolean',
        describe: 'Send the optional parameters OpenAI Batch lines hold in body (temperature, max_tokens, ...)',
      })
      .option('system', { type: 'string', describe: 'System message put before every row' })
      .option('template', { type: 'string', describe: "User message template, e.g. 'Describe {{name}}'" })
      .option('id-field', { type: 'string', describe: 'Field or column holding the row id' })
      .option('concurrency', { type: 'string', coerce: positiveInteger('concurrency'), describe: 'Most requests in flight (default 8)' })
      .option('max-attempts', { type: 'string', coerce: positiveInteger('max-attempts'), describe: 'Most attempts per row (default 5)' })
      .option('timeout-ms', { type: 'string', coerce: positiveInteger('timeout-ms'), describe: 'Hard limit per attempt (default 120000)' })
      .option('row-deadline-ms', {
        type: 'string',
        coerce: positiveInteger('row-deadline-ms'),
        describe: 'Overall limit per row, retries included (default 900000)',
      })
      .option('max-retry-wait-ms', {
        type: 'string',
        coerce: nonNegativeInteger('max-retry-wait-ms'),
        describe: 'Longest retry-after a server may impose before the row fails (default 60000)',
      })
      .option('grace-ms', {
        type: 'string',
        coerce: nonNegativeInteger('grace-ms'),
        describe: 'On Ctrl-C, how long in-flight requests may finish (default 10000)',
      })
      .option('max-outage-ms', {
        type: 'string',
        coerce: nonNegativeInteger('max-outage-ms'),
        describe:
          'Longest the run waits out an endpoint outage (only 5xx, resets, timeouts) before stopping with exit 3, rows pending; 0: no pause (default 300000)',
      })
      .option('rpm', {
        type: 'string',
        coerce: positiveInteger('rpm'),
        describe: "Requests-per-minute budget (the job's: each of N shards takes 1/N)",
      })
      .option('tpm', {
        type: 'string',
        coerce: positiveInteger('tpm'),
        describe: "Estimated tokens-per-minute budget (the job's: each of N shards takes 1/N)",
      })
      .option('max-total-tokens', {
        type: 'string',
        coerce: positiveInteger('max-total-tokens'),
        describe:
          'Token budget for the output directory, across resumes: stop sending new rows before passing it (exit 4, rows pending; --resume with a larger budget goes on)',
      })
      .option('resume', { type: 'boolean', describe: 'Continue the run in --out, skipping settled rows' })
      .option('retry-failed', {
        type: 'string',
        array: true,
        describe: 'With --resume: re-run failed rows (all, or categories e.g. rate_limited server_error)',
      })
      .option('force', { type: 'boolean', describe: 'Discard an earlier run in --out and start over' })
      .option('cache', { type: 'string', describe: 'Response cache directory (reproducible re-runs)' })
      .option('simulate', { type: 'boolean', describe: 'Start the built-in simulator and send to it (replies are simulated)' })
      .option('quiet', { type: 'boolean', describe: 'No progress output' })
      .option('format', {
        type: 'string',
        choices: ['jsonl', 'csv', 'openai-batch'],
        describe: 'Also write output.csv/errors.csv (csv) or batch-output.jsonl/batch-errors.jsonl (openai-batch)',
      })
      .option('escape-formulas', {
        type: 'boolean',
        describe: 'CSV: escape cells a spreadsheet would execute (default on; --no-escape-formulas turns it off)',
      })
      .option('bom', { type: 'boolean', describe: 'CSV: start with a UTF-8 BOM for Excel' })
      .option('reply-format', {
        type: 'string',
        choices: ['text', 'json'],
        describe:
          "json: parse each reply as JSON (bare or in a ```json block) into the record's data; a reply that does not parse fails as invalid_reply (default text)",
      })
      .option('reply-schema', {
        type: 'string',
        describe: "JSON Schema file (draft 2020-12 or draft-07) each reply's data must match; implies --reply-format json",
      })
      .option('reply-retries', {
        type: 'string',
        coerce: nonNegativeInteger('reply-retries'),
        describe: 'How many times a reply that does not parse or match is sent again; each try is paid (default 1)',
      })
      .option('shard', {
        type: 'string',
        describe: 'K/N: take only the rows whose id hashes to K (0..N-1); join shards with chatbatch merge',
      })
      .option('repeat', {
        type: 'string',
        coerce: positiveInteger('repeat'),
        describe: 'Send each row N times as independent samples; records carry sample 0..N-1 (default 1)',
      })
      .option('dry-run', { type: 'boolean', describe: 'Read and check every row, build every request, send nothing' })
      .example('$0 run prompts.jsonl --base-url https://api.example.com/v1 --model my-model --out out/today', 'Run a JSONL file')
      .example("$0 run 'data/*.csv' --template 'Summarise: {{text}}' --job jobs/enrich.json", 'Run a glob of CSV files with a template')
      .example('$0 run --job jobs/quickstart.json --simulate', 'Try it against the built-in simulator')
      .example('$0 run --job jobs/nightly.json --out out/2026-11-22 --resume', 'Resume an interrupted run')
      .example(
        "$0 run in.jsonl --base-url https://api.portkey.ai/v1 --header 'x-portkey-provider: openai' --header 'x-portkey-api-key: ${PORTKEY_API_KEY}' ...",
        'Send through a gateway',
      ) as unknown as Argv<RunArgs>,
  handler: async (args) => {
    process.exitCode = await runFromCli(args);
  },
};

async function runFromCli(args: RunArgs): Promise<number> {
  let reporter: ProgressReporter | null = null;
  const log = (line: string): void => {
    if (reporter) reporter.writeLine(`chatbatch: ${redactSecrets(line)}`);
    else process.stderr.write(`chatbatch: ${redactSecrets(line)}\n`);
  };
  let simulator: RunningSimulator | null = null;
  try {
    if (namesStandardInput(process.argv.slice(2), (option) => (args as Record<string, unknown>)[option])) {
      log(STANDARD_INPUT_REFUSAL);
      return EXIT.usage;
    }
    const job = args.job ? await loadJobFile(args.job) : null;
    if (args['dry-run']) {
      // A dry run sends nothing: --simulate starts no server, it only names the endpoint.
      const simulated = args.simulate ? { simulatorUrl: SIMULATOR_BASE_URL } : {};
      const config = resolveRunConfig(flagsFrom(args), job, { env: process.env, cwd: process.cwd(), dryRun: true, ...simulated });
      const report = await dryRun(config, { maxListed: 50, assumedLatencyMs: 2000 });
      process.stdout.write(formatDryRun(report, config));
      return report.invalidCount > 0 ? EXIT.rowsFailed : EXIT.ok;
    }
    if (args.simulate) simulator = await startSimulator({});
    const config = resolveRunConfig(flagsFrom(args), job, {
      env: process.env,
      cwd: process.cwd(),
      ...(simulator ? { simulatorUrl: simulator.url } : {}),
    });
    // Announced once the configuration holds, so a refused one reads as a refusal only.
    if (simulator) log(`started the built-in simulator at ${simulator.url}: replies are SIMULATED, nothing leaves this machine`);

    registerSecret(config.apiKey);
    if (config.cacheDir) await ResponseCache.check(config.cacheDir);

    const stop = new AbortController();
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals): void => {
      signals++;
      if (signals === 1) {
        log(`${signal} received: finishing in-flight requests (press Ctrl-C again to stop at once)`);
        stop.abort();
      } else {
        log('stopped at once; the journal is consistent, resume with --resume');
        process.exit(EXIT.interrupted);
      }
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);

    const progress = newProgress(performance.now());
    reporter = args.quiet ? null : startProgressReporter(progress, process.stderr);
    try {
      const report = await runBatch({ config, stop: stop.signal, log, progress });
      reporter?.stop();
      if (report.fatalMessage) log(report.fatalMessage);
      process.stderr.write(`${formatSummary(report)}\n`);
      if (report.status === 'interrupted') {
        log(`interrupted; to continue, run:\n  ${resumeCommand(config.outDir)}`);
      }
      if (report.status === 'stopped_at_limit' && report.budget) {
        log(budgetStopMessage(report.budget, report.pending, (budgetFlag) => resumeCommand(config.outDir, budgetFlag)));
      }
      return exitCodeFor(report.status);
    } finally {
      reporter?.stop();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  } catch (error) {
    if (error instanceof NothingSentError) {
      log(error.explain());
      return EXIT.usage;
    }
    if (error instanceof ExpansionInterruptedError) {
      log(error.message);
      return EXIT.interrupted;
    }
    const writeFailure = diskFailureOf(error);
    if (writeFailure) {
      log(writeFailure.explain('rerun with --resume'));
      return EXIT.writeFailed;
    }
    await reportInternalError(error, { resumable: true });
    return EXIT.internalError;
  } finally {
    await simulator?.close();
  }
}

function flagsFrom(args: RunArgs): RunFlags {
  return {
    inputs: args.inputs ?? [],
    baseUrl: args['base-url'],
    model: args.model,
    out: args.out,
    apiKeyEnv: args['api-key-env'],
    apiKeyFile: args['api-key-file'],
    headers: args.header === undefined ? undefined : [args.header].flat(),
    rowParams: args['row-params'],
    system: args.system,
    template: args.template,
    idField: args['id-field'],
    concurrency: args.concurrency,
    maxAttempts: args['max-attempts'],
    timeoutMs: args['timeout-ms'],
    rowDeadlineMs: args['row-deadline-ms'],
    maxRetryWaitMs: args['max-retry-wait-ms'],
    graceMs: args['grace-ms'],
    maxOutageMs: args['max-outage-ms'],
    rpm: args.rpm,
    tpm: args.tpm,
    maxTotalTokens: args['max-total-tokens'],
    resume: args.resume,
    retryFailed: args['retry-failed'],
    force: args.force,
    cache: args.cache,
    format: args.format,
    shard: args.shard,
    repeat: args.repeat,
    escapeFormulas: args['escape-formulas'],
    bom: args.bom,
    replyFormat: args['reply-format'],
    replySchema: args['reply-schema'],
    replyRetries: args['reply-retries'],
  };
}

/** The user's own command line with --resume added (and --force removed); `budgetFlag` replaces any --max-total-tokens. */
function resumeCommand(outDir: string, budgetFlag: string[] = []): string {
  const argv = process.argv.slice(2).filter((arg) => arg !== '--force' && arg !== '--resume');
  if (budgetFlag.length > 0) {
    const at = argv.findIndex((arg) => arg === '--max-total-tokens' || arg.startsWith('--max-total-tokens='));
    if (at >= 0) argv.splice(at, argv[at] === '--max-total-tokens' ? 2 : 1);
  }
  if (!argv.includes('--out') && !argv.some((a) => a.startsWith('--out='))) argv.push('--out', outDir);
  return ['chatbatch', ...argv, '--resume', ...budgetFlag].map(shellQuote).join(' ');
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
