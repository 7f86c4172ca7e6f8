import { type RunOptions, type RunProgress, type RunResult, run } from '../../src/index.js';
import type { RowRecord } from '../../src/record/record.js';
import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../../src/simulator/server.js';
import { SendTimes } from './send-times.js';
import type { skipAheadClock } from './skip-ahead-clock.js';
import type { TempDir } from './temp-dir.js';

export type SkipAheadClock = ReturnType<typeof skipAheadClock>;

/**
 * The simulator on `clock`'s time: its rate limits refill, and its counters read, by the waits the
 * clock skips as well as by real time, so a run paced on the clock meets a provider that saw the
 * same minutes go by. (Wall time, as the simulator's limits and headers count in.) Its limits
 * count each request at the time the run sent it (send-times.ts), however long a loaded machine
 * kept it on its way.
 */
export async function startSimulatorOn(clock: SkipAheadClock, options: SimulatorOptions): Promise<RunningSimulator> {
  // The wall clock to the fraction of a millisecond, as the run's own clock (performance.now()):
  // Date.now() truncates to whole milliseconds, which can put a request the run paced exactly at
  // a refill up to 1 ms early on the simulator's bucket (one 429 to a run told --rpm, seen once at load 8).
  const now = () => performance.timeOrigin + performance.now() + clock.skipped;
  let sent: SendTimes | null = null;
  const simulator = await startSimulator({
    ...options,
    clock: () => sent?.clock() ?? now(),
    onRequest: (request) => {
      sent?.handle(request.headers);
      options.onRequest?.(request);
    },
  });
  sent = new SendTimes(new URL(simulator.url).origin, now);
  const close = simulator.close.bind(simulator);
  return Object.assign(simulator, {
    close: async () => {
      sent?.close();
      await close();
    },
  });
}

export interface ClockedRun {
  /** run()'s report, with the exit code `chatbatch run` would end with. */
  result: RunResult;
  output: RowRecord[];
  errors: RowRecord[];
  /** Every record, output and errors, by id. */
  byId: Map<string, RowRecord>;
  /** The run's manifest.json, parsed. */
  manifest: { counts: Record<string, number>; sessions: Array<Record<string, unknown>> };
  /** The notices `chatbatch run` would print on stderr. */
  notices: string[];
  /** The run's last progress snapshot (what the CLI's progress line is drawn from). */
  progress: RunProgress | null;
}

/**
 * Runs the engine in process over `dir/in.jsonl` against `baseUrl`, out to `dir/out`, on a
 * skip-ahead `clock` (retry delays and pacing naps pass at once, recorded as asked), with
 * `options` over the usual settings; returns its report, records and manifest.
 */
export async function runOnClock(
  dir: TempDir,
  baseUrl: string,
  clock: NonNullable<RunOptions['clock']>,
  options: Partial<RunOptions> = {},
): Promise<ClockedRun> {
  const notices: string[] = [];
  let progress: RunProgress | null = null;
  const result = await run({
    inputs: [dir.file('in.jsonl')],
    model: 'sim',
    baseUrl,
    apiKey: 'sk-clocked-run-key-abcdefghij',
    keyName: 'CHATBATCH_API_KEY',
    out: dir.file('out'),
    clock,
    onNotice: (line) => notices.push(line),
    onProgress: (snapshot) => (progress = snapshot),
    ...options,
  });
  const output = await dir.jsonl<RowRecord>('out/output.jsonl');
  const errors = await dir.jsonl<RowRecord>('out/errors.jsonl');
  return {
    result,
    output,
    errors,
    byId: new Map([...output, ...errors].map((record) => [record.id, record])),
    manifest: JSON.parse(await dir.read('out/manifest.json')) as ClockedRun['manifest'],
    notices,
    progress,
  };
}
