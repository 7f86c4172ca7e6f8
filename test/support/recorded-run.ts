import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { closeBoth, perTest } from './per-test.js';
import { jsonlOf, makeTempDir, type TempDir } from './temp-dir.js';

export interface RecordedRun {
  dir: TempDir;
  simulator: RunningSimulator;
  /** Row ids in the order the endpoint received their requests. */
  sent: string[];
  /** Closes the simulator and removes the temp dir. */
  close(): Promise<void>;
}

/**
 * A temp dir whose `in.jsonl` has one row `{id, prompt: 'ask <id>'}` per id, and a simulator
 * (1 ms latency) recording which row each request it receives is for, in order.
 */
export async function startRecordedRun(ids: readonly string[]): Promise<RecordedRun> {
  const dir = await makeTempDir();
  const sent: string[] = [];
  const simulator = await startSimulator({
    latencyMs: 1,
    onRequest: ({ body }) => sent.push(String(JSON.parse(body).messages.at(-1).content).replace('ask ', '')),
  });
  await dir.write('in.jsonl', jsonlOf(ids.map((id) => ({ id, prompt: `ask ${id}` }))));
  return { dir, simulator, sent, close: () => closeBoth(simulator, dir) };
}

/** For each test, a fresh recorded run of these ids (see startRecordedRun); closed after it. */
export function perTestRecordedRun(ids: readonly string[], use: (fresh: RecordedRun) => void): void {
  perTest(() => startRecordedRun(ids), use);
}
