import type { RowRecord } from '../../src/record/record.js';
import { type SimulatorOptions, type SimulatorStats, startSimulator } from '../../src/simulator/server.js';
import type { CliResult } from './cli.js';
import { runCli } from './cli-in-process.js';
import { jsonlOf, makeTempDir, type TempDir } from './temp-dir.js';

export const PROVIDER_KEY = 'sk-provider-run-key-abcdefghij';

export interface ChatbatchRun {
  result: CliResult;
  output: RowRecord[];
  errors: RowRecord[];
  /** The run's manifest.json, parsed; null when it was not written. */
  manifest: Record<string, unknown> | null;
}

/** `count` rows `{id: 'r<i>', prompt: 'ask r<i>'}`. */
export function promptRows(count: number): Array<{ id: string; prompt: string }> {
  return Array.from({ length: count }, (_, index) => ({ id: `r${index}`, prompt: `ask r${index}` }));
}

/**
 * Runs the built chatbatch over `rows` (written to `dir/in.jsonl`) against `baseUrl`, out to
 * `dir/out`, with `args` after the usual flags; returns its result and records.
 */
export async function runChatbatch(
  dir: TempDir,
  baseUrl: string,
  rows: readonly unknown[],
  args: readonly string[] = [],
  timeoutMs = 60_000,
): Promise<ChatbatchRun> {
  await dir.write('in.jsonl', jsonlOf(rows));
  const result = await runCli(['run', 'in.jsonl', '--base-url', baseUrl, '--model', 'sim', '--out', 'out', '--quiet', ...args], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: PROVIDER_KEY },
    timeoutMs,
  });
  let manifest: Record<string, unknown> | null = null;
  try {
    manifest = JSON.parse(await dir.read('out/manifest.json')) as Record<string, unknown>;
  } catch {
    manifest = null;
  }
  return {
    result,
    output: await dir.jsonl<RowRecord>('out/output.jsonl'),
    errors: await dir.jsonl<RowRecord>('out/errors.jsonl'),
    manifest,
  };
}

export interface ProviderRun extends ChatbatchRun {
  /** What the simulator saw: requests, 429s by cause (`limited`), most in flight, first/last request time. */
  stats: SimulatorStats;
}

/**
 * Starts the simulator playing a provider (`provider`: rpm, tpm, limitHeaders, maxInFlight,
 * latencyMs...), runs chatbatch over `rows` against it with `args`, and returns the simulator's
 * counters beside the run's result and records. The simulator and temp dir are gone after.
 */
export async function runAgainstProvider(
  provider: SimulatorOptions,
  rows: number | readonly unknown[],
  args: readonly string[] = [],
  timeoutMs?: number,
): Promise<ProviderRun> {
  const dir = await makeTempDir();
  const simulator = await startSimulator(provider);
  try {
    const run = await runChatbatch(dir, simulator.url, typeof rows === 'number' ? promptRows(rows) : rows, args, timeoutMs);
    return { ...run, stats: simulator.stats() };
  } finally {
    await simulator.close();
    await dir.remove();
  }
}
