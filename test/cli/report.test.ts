import { mkdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await dir.remove();
});

/** A finished run's files, written directly: the report reads only these. */
async function writeRun(outDir: string, records: { ok: string[]; errors: string[] }): Promise<void> {
  await mkdir(dir.file(outDir), { recursive: true });
  await dir.write(`${outDir}/manifest.json`, JSON.stringify({ job: 'known-run', status: 'finished_with_failures' }));
  await dir.write(`${outDir}/output.jsonl`, records.ok.join(''));
  await dir.write(`${outDir}/errors.jsonl`, records.errors.join(''));
}

function record(i: number, fields: Record<string, unknown> = {}): string {
  const started = new Date(Date.UTC(2026, 10, 22, 2, 0, 0) + i).toISOString();
  return `${JSON.stringify({ id: `r${i}`, status: 200, code: null, trace_id: null, attempts: 1, started_at: started, duration_ms: i % 100, ...fields })}\n`;
}

describe('chatbatch report on a large run', () => {
  it('summarises 200,000 rows (more than a spread of arguments can hold) without crashing', async () => {
    const ok = Array.from({ length: 200_000 }, (_, i) => record(i));
    await writeRun('out', {
      ok,
      errors: [record(200_000, { status: 500, code: 'server_error', category: 'server_error', message: 'boom' })],
    });
    const report = await runCli(['report', 'out'], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('rows: 200001  ok: 200000  failed: 1');
    expect(report.stdout).toContain('p50 49  p90 89');
  }, 30_000);
});

describe('chatbatch report flags', () => {
  it('--html without a file name exits 2 naming the flag instead of writing nothing', async () => {
    await writeRun('out', { ok: [record(1)], errors: [] });
    const report = await runCli(['report', 'out', '--html'], { cwd: dir.path });
    expect(report.code).toBe(2);
    expect(report.stderr).toContain('--html');
  });
});

describe('chatbatch report --html', () => {
  it('draws both charts on one labelled time axis and tells first-try, retried and failed rows apart', async () => {
    // 0..9 ok first try, 10..12 ok after retries, 13..14 failed, over ~3 s of run time.
    const ok = Array.from({ length: 13 }, (_, i) =>
      record(i * 200, { id: `r${i}`, attempts: i >= 10 ? 3 : 1, duration_ms: i >= 10 ? 900 : 100 }),
    );
    const errors = [13, 14].map((i) =>
      record(i * 200, { id: `r${i}`, status: 500, code: 'server_error', category: 'server_error', attempts: 3, duration_ms: 1200 }),
    );
    await writeRun('out', { ok, errors });
    const report = await runCli(['report', 'out', '--html', 'report.html'], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(0);
    const html = await dir.read('report.html');
    const [latency, throughput] = html.split('<figure>').slice(1);
    const circles = (color: string) => (latency!.match(new RegExp(`<circle [^>]*fill="${color}"`, 'g')) ?? []).length;
    expect([circles('#2a7'), circles('#e69500'), circles('#c33')]).toEqual([10, 3, 2]);
    for (const label of ['ok, first attempt', 'ok after retries', 'failed', 'latency (ms), first attempt to final answer', 'p50 100 ms']) {
      expect(latency).toContain(label);
    }
    expect(throughput).toContain('rows settled per 1 s');
    const timeTicks = (chart: string) => [...chart.matchAll(/class="tick">(\d+(?:\.\d+)? s)</g)].map((m) => m[1]);
    expect(timeTicks(latency!)).toEqual(timeTicks(throughput!));
    expect(timeTicks(latency!)).toContain('0 s');
    expect(latency).toContain('time since the first request started (s)');
    expect(html).not.toMatch(/<script[^>]*\ssrc=|<link|https?:\/\/(?!www\.w3\.org)/);
  });
});
