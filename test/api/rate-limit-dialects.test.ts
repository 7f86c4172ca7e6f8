import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { promptRows } from '../support/provider-run.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

const KEY = 'sk-dialect-test-1234567890';

interface LearnedInManifest {
  unit: string;
  limit: number;
  window_ms: number;
  rate: string;
  source: string;
}

let dir: TempDir | null = null;
let simulator: RunningSimulator | null = null;
afterEach(async () => {
  await simulator?.close();
  await dir?.remove();
  simulator = null;
  dir = null;
});

/** Runs the engine in process over `rows` prompts against the simulator started with `provider`. */
async function runAgainst(provider: Parameters<typeof startSimulator>[0], rows: number) {
  dir = await makeTempDir();
  simulator = await startSimulator({ apiKey: KEY, ...provider });
  await dir.write('rows.jsonl', jsonlOf(promptRows(rows)));
  const progress: Array<string | null> = [];
  const report = await run({
    inputs: [dir.file('rows.jsonl')],
    model: 'sim-model',
    baseUrl: simulator.url,
    apiKey: KEY,
    out: dir.file('out'),
    onProgress: (snapshot) => progress.push(snapshot.limitedBy),
  });
  const manifest = JSON.parse(await dir.read('out/manifest.json')) as { sessions: Array<{ limits_learned?: LearnedInManifest[] }> };
  return { report, progress, learned: manifest.sessions.at(-1)?.limits_learned ?? [], stats: simulator.stats() };
}

describe('run() against providers speaking their own rate-limit dialects', () => {
  it("Groq's unsuffixed requests limit is learned per day, not paced as 14,400 a minute", async () => {
    // console.groq.com/docs/rate-limits: x-ratelimit-limit-requests is requests per DAY, -tokens per minute.
    const { report, progress, learned } = await runAgainst({ rpd: 14_400, tpm: 1_000_000, limitHeaders: 'groq' }, 40);
    expect(report).toMatchObject({ status: 'complete', exitCode: 0, succeeded: 40 });
    // The requests limit was first taken for a minute (its first resets, 6 s, said nothing more), then for the day
    // once its reset passed a minute: kept in the order learned.
    expect([...learned].sort((a, b) => a.unit.localeCompare(b.unit))).toEqual([
      { unit: 'requests', limit: 14_400, window_ms: 86_400_000, rate: '14,400 requests per day', source: 'x-ratelimit-limit-requests' },
      { unit: 'tokens', limit: 1_000_000, window_ms: 60_000, rate: '1,000,000 tokens per minute', source: 'x-ratelimit-limit-tokens' },
    ]);
    expect(progress.at(-1)).toMatch(/^limited by the provider: (?=.*14,400 requests per day)(?=.*1,000,000 TPM).* \(from headers\)$/);
    expect(progress.at(-1)).not.toContain('14,400 RPM');
  });

  it('a 200 saying a long window is spent stops the run at once (exit 3, rate-quota), rows pending, no 429 taken', async () => {
    // Three requests a day, Cerebras's dialect (inference-docs.cerebras.ai/support/rate-limits): the answer that
    // takes the third says `x-ratelimit-remaining-requests-day: 0`; the next would wait 8 hours for its refill.
    const { report, stats } = await runAgainst({ rpd: 3, limitHeaders: 'cerebras' }, 10);
    expect(report).toMatchObject({ status: 'aborted', exitCode: 3, succeeded: 3, failed: 0, pending: 7 });
    expect(report.fatalMessage).toContain('will not allow another request for longer than --max-outage-ms (5 min)');
    expect(report.fatalMessage).toContain('HTTP 200');
    expect(report.fatalMessage).toContain(
      'x-ratelimit-limit-requests-day says 3 requests per day, and the next request fits only in 8.2 h',
    );
    expect(stats.requests).toBe(3);
    expect(stats.byStatus).toEqual({ 200: 3 });
  });
});
