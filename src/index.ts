import type { Dispatcher } from 'undici';
/**
 * chatbatch as a library: `import { run } from 'chatbatch'`.
 *
 * `run()` does what `chatbatch run` does, with the settings given as values: it reads no
 * argv or environment, writes nothing to stdout or stderr, installs no signal handler and never
 * exits the process. Problems found before the first request reject with a `NothingSentError`
 * (its `explain()` is the CLI's message); a failed write rejects with a `WriteFailedError`.
 */

import { exitCodeFor } from './cli/exit-codes.js';
import { NothingSentError } from './errors.js';
import { type RunFlags, resolveRunConfig } from './job/config.js';
import { newProgress, type RunProgress } from './run/progress.js';
import type { RunReport } from './run/report.js';
import { runBatch } from './run/run.js';
import type { LogKind } from './run/run-options.js';

export { NothingSentError } from './errors.js';
export { FAILURE_CATEGORIES } from './record/categories.js';
export type { FailureCategory, RowRecord } from './record/record.js';
export type { UsageTotals } from './record/usage-totals.js';
export type { RunProgress } from './run/progress.js';
export type { CostReport, RunReport, TokenBudgetReport } from './run/report.js';
export type { LogKind } from './run/run-options.js';
export { WriteFailedError } from './state/write-failed.js';

/** Every setting of a job, in camelCase: see the README's job-file table. */
export interface RunOptions extends Omit<RunFlags, 'inputs' | 'apiKeyEnv' | 'apiKeyFile' | 'out' | 'baseUrl' | 'model' | 'models'> {
  /** Input files or glob patterns (JSONL, CSV), relative to the working directory. */
  inputs: string[];
  /** A model, or several: every row is sent to each, in this order. */
  model: string | string[];
  baseUrl: string;
  /** The key itself; it is sent only in the Authorization header. */
  apiKey: string;
  /** The name records and the manifest give the key (`key_name`); default `apiKey`. */
  keyName?: string;
  /**
   * Values for the `${NAME}`s in `headers` (`['x-portkey-api-key: ${PORTKEY_API_KEY}']`), which
   * the CLI fills from the environment: secrets like the key, sent and never written.
   */
  headerVariables?: Readonly<Record<string, string>>;
  /** Output directory. */
  out: string;
  /** Abort to stop admitting rows; requests in flight get `graceMs` to finish, as on Ctrl-C. */
  signal?: AbortSignal;
  /** Called with a snapshot of the run's progress every `progressEveryMs` (default 1000) and at the end. */
  onProgress?: (progress: Readonly<RunProgress>) => void;
  progressEveryMs?: number;
  /**
   * Notices the CLI would print on stderr (a resume's repairs, sent-again rows, a model's stop
   * ...), each with its kind: `note`, `warning` (rows pending or sent again), `stop` (the endpoint
   * stopped a model) or `error`; the CLI's JSON logs give each kind its level.
   */
  onNotice?: (line: string, kind: LogKind) => void;
  /**
   * Where to read HTTPS_PROXY, HTTP_PROXY and NO_PROXY (either case) from, as the CLI reads them
   * from its environment (see the README's proxies); `process.env` to follow the shell's. No
   * other variable is read from it. Default: none, requests go direct.
   */
  proxyEnv?: Readonly<Record<string, string | undefined>>;
  /**
   * Test seam: send every request through this undici dispatcher (undici's `MockAgent`, answering
   * in process) instead of connecting. Yours to close.
   */
  dispatcher?: Dispatcher;
  /**
   * Test seam: the run's clock. `sleep` waits out retry delays and pacing naps (resolve false when
   * `signal` aborts); a clock that skips ahead runs a run of long waits at once. Default: real time.
   */
  clock?: { now(): number; sleep(ms: number, signal: AbortSignal): Promise<boolean> };
}

const PROXY_VARIABLE = /^(https?|no)_proxy$/i;

/** The run's report, with the exit code `chatbatch run` would end with. */
export type RunResult = RunReport & { exitCode: number };

export async function run(options: RunOptions): Promise<RunResult> {
  const {
    apiKey,
    keyName = 'apiKey',
    headerVariables,
    signal,
    onProgress,
    progressEveryMs = 1000,
    onNotice,
    proxyEnv = {},
    dispatcher,
    clock,
    ...flags
  } = options;
  if (typeof apiKey !== 'string') throw new NothingSentError(`'apiKey' must be a string: current value is ${typeof apiKey}`);
  const proxyVariables = Object.fromEntries(Object.entries(proxyEnv).filter(([name]) => PROXY_VARIABLE.test(name)));
  const config = resolveRunConfig({ ...flags, apiKeyEnv: keyName }, null, {
    env: { ...proxyVariables, ...headerVariables, [keyName]: apiKey },
    cwd: process.cwd(),
  });
  const progress = newProgress(clock ? clock.now() : performance.now());
  const timer = onProgress ? setInterval(() => onProgress({ ...progress }), progressEveryMs) : null;
  timer?.unref();
  try {
    const report = await runBatch({
      config,
      stop: signal ?? new AbortController().signal,
      log: (line, kind = 'note') => onNotice?.(line, kind),
      progress,
      ...(dispatcher ? { dispatcher } : {}),
      ...(clock ? { now: () => clock.now(), sleep: (ms: number, abort: AbortSignal) => clock.sleep(ms, abort) } : {}),
    });
    return { ...report, exitCode: exitCodeFor(report.status) };
  } finally {
    if (timer) clearInterval(timer);
    onProgress?.({ ...progress });
  }
}
