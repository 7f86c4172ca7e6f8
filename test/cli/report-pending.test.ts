import { mkdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { runCli, startCliInProcess } from '../support/cli-in-process.js';
import { perTestSimulatedDir } from '../support/per-test.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

let dir: TempDir;
let simulator: RunningSimulator;
let sent: string[];

perTestSimulatedDir((fresh) => ({ dir, simulator, sent } = fresh));

describe('chatbatch report on a run that did not finish', () => {
  it('counts the rows still pending, in text and HTML, and says how to finish them', async () => {
    // Three rows answer; the fourth hangs until Ctrl-C; six are never read.
    const rows = Array.from({ length: 10 }, (_, i) => ({ id: `r${i}`, prompt: i < 3 ? `prompt ${i}` : `prompt ${i} [[sim:hang]]` }));
    await dir.write('in.jsonl', jsonlOf(rows));
    const args = ['in.jsonl', '--base-url', simulator.url, '--model', 'sim', '--out', 'out', '--concurrency', '1', '--grace-ms', '0'];
    const { stop, done } = startCliInProcess(['run', ...args, '--quiet'], {
      cwd: dir.path,
      env: { CHATBATCH_API_KEY: 'sk-report-pending-test' },
    });
    await waitFor(() => sent.length >= 4);
    stop();
    const stopped = await done;
    expect(stopped.code, stopped.stderr).toBe(130);

    const report = await runCli(['report', 'out', '--html', 'report.html'], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('(interrupted)');
    expect(report.stdout).toContain('rows: 10  ok: 3  failed: 0  pending: 7');
    expect(report.stdout).toContain('7 row(s) pending: not answered when the run stopped; run it again with --resume to finish them');
    const html = await dir.read('report.html');
    expect(html).toContain('<div class="card"><b>10</b>rows</div>');
    expect(html).toContain('<div class="card"><b>7</b>pending</div>');
    expect(html).toContain('7 row(s) pending');
  });

  it('says the pending count is unknown while the manifest still says running (a run going on, or killed)', async () => {
    await mkdir(dir.file('out'), { recursive: true });
    await dir.write(
      'out/manifest.json',
      JSON.stringify({ job: 'killed', status: 'running', counts: { rows: 0, succeeded: 0, failed: 0, pending: 0, by_category: {} } }),
    );
    await dir.write(
      'out/output.jsonl',
      `${JSON.stringify({ id: 'a', status: 200, code: null, trace_id: null, attempts: 1, started_at: new Date(0).toISOString(), duration_ms: 5 })}\n`,
    );
    const report = await runCli(['report', 'out'], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('rows: 1  ok: 1  failed: 0  pending: unknown');
    expect(report.stdout).toContain('the run is still going, or was killed');
  });
});
