import { readdir, readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { startCli } from '../support/cli.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestSimulatedDir } from '../support/per-test.js';
import { recording } from '../support/recording-simulator.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

let dir: TempDir;
let simulator: RunningSimulator;
let sent: string[];

perTestSimulatedDir((fresh) => ({ dir, simulator, sent } = fresh), { latencyMs: 2 });
// Some tests restart the simulator with other options: the one in use at the end is closed too.
afterEach(() => simulator.close());

const env = () => ({ CHATBATCH_API_KEY: 'sk-resume-test-key-000000' });
const baseArgs = () => ['--base-url', simulator.url, '--model', 'sim', '--out', 'out'];

async function writeRows(count: number, prefix = 'r'): Promise<void> {
  await dir.write('in.jsonl', jsonlOf(Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}`, prompt: `prompt ${i}` }))));
}

async function ids(name: string): Promise<string[]> {
  return (await dir.jsonl<{ id: string }>(name)).map((r) => r.id);
}

describe('re-running an output directory', () => {
  it('refuses without --resume or --force, sending nothing and changing nothing', async () => {
    await writeRows(20);
    expect((await runCli(['run', 'in.jsonl', ...baseArgs()], { cwd: dir.path, env: env() })).code).toBe(0);
    const before = await Promise.all(['out/output.jsonl', 'out/manifest.json'].map((f) => readFile(dir.file(f))));
    sent.length = 0;
    const again = await runCli(['run', 'in.jsonl', ...baseArgs()], { cwd: dir.path, env: env() });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('holds a finished run');
    expect(again.stderr).toContain('--resume');
    expect(again.stderr).toContain('--force');
    expect(sent).toHaveLength(0);
    const after = await Promise.all(['out/output.jsonl', 'out/manifest.json'].map((f) => readFile(dir.file(f))));
    expect(after).toEqual(before);
  });

  it('--resume on a finished run sends nothing and leaves the files byte-identical, manifest.json included', async () => {
    await writeRows(30);
    expect((await runCli(['run', 'in.jsonl', ...baseArgs()], { cwd: dir.path, env: env() })).code).toBe(0);
    const output = await dir.read('out/output.jsonl');
    const errors = await dir.read('out/errors.jsonl');
    const manifest = await dir.read('out/manifest.json');
    sent.length = 0;
    const again = await runCli(['run', 'in.jsonl', ...baseArgs(), '--resume'], { cwd: dir.path, env: env() });
    expect(again.code, again.stderr).toBe(0);
    expect(sent).toHaveLength(0);
    expect(await dir.read('out/output.jsonl')).toBe(output);
    expect(await dir.read('out/errors.jsonl')).toBe(errors);
    expect(await dir.read('out/manifest.json')).toBe(manifest);
  });

  it('--force starts over', async () => {
    await writeRows(5);
    expect((await runCli(['run', 'in.jsonl', ...baseArgs()], { cwd: dir.path, env: env() })).code).toBe(0);
    sent.length = 0;
    const again = await runCli(['run', 'in.jsonl', ...baseArgs(), '--force'], { cwd: dir.path, env: env() });
    expect(again.code).toBe(0);
    expect(sent).toHaveLength(5);
    expect(await ids('out/output.jsonl')).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
  });

  it('--force also removes the files an earlier --format wrote', async () => {
    await writeRows(5);
    expect((await runCli(['run', 'in.jsonl', ...baseArgs(), '--format', 'csv'], { cwd: dir.path, env: env() })).code).toBe(0);
    expect((await readdir(dir.file('out'))).sort()).toContain('output.csv');
    const again = await runCli(['run', 'in.jsonl', ...baseArgs(), '--force'], { cwd: dir.path, env: env() });
    expect(again.code, again.stderr).toBe(0);
    expect((await readdir(dir.file('out'))).sort()).toEqual(['.chatbatch', 'errors.jsonl', 'manifest.json', 'output.jsonl']);
  });

  it('re-runs rows whose request changed, and says how many', async () => {
    await writeRows(6);
    expect((await runCli(['run', 'in.jsonl', ...baseArgs()], { cwd: dir.path, env: env() })).code).toBe(0);
    await dir.write(
      'in.jsonl',
      jsonlOf(Array.from({ length: 6 }, (_, i) => ({ id: `r${i}`, prompt: i < 2 ? `changed ${i}` : `prompt ${i}` }))),
    );
    sent.length = 0;
    const again = await runCli(['run', 'in.jsonl', ...baseArgs(), '--resume'], { cwd: dir.path, env: env() });
    expect(again.code, again.stderr).toBe(0);
    expect(sent).toHaveLength(2);
    expect(again.stderr).toContain('2 row(s) sent again because their request changed');
    const output = await dir.jsonl<{ id: string; reply: string }>('out/output.jsonl');
    expect(output.map((r) => r.id)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    expect(output[0]!.reply).toContain('changed 0');
  });

  it('--retry-failed re-runs only the failed rows of the chosen categories', async () => {
    await dir.write(
      'in.jsonl',
      jsonlOf([
        { id: 'ok', prompt: 'fine' },
        { id: 'flaky', prompt: 'fails first [[sim:500x3]]' },
        { id: 'bad', prompt: 'always 400 [[sim:400]]' },
      ]),
    );
    const first = await runCli(['run', 'in.jsonl', ...baseArgs(), '--max-attempts', '2'], { cwd: dir.path, env: env() });
    expect(first.code, first.stderr).toBe(1);
    expect(await ids('out/errors.jsonl')).toEqual(['flaky', 'bad']);
    sent.length = 0;
    const retry = await runCli(['run', 'in.jsonl', ...baseArgs(), '--resume', '--retry-failed', 'server_error', '--max-attempts', '2'], {
      cwd: dir.path,
      env: env(),
    });
    expect(retry.code, retry.stderr).toBe(1);
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(await ids('out/output.jsonl')).toEqual(['ok', 'flaky']);
    expect(await ids('out/errors.jsonl')).toEqual(['bad']);
  });
});

describe('interruptions', () => {
  it('SIGINT exits 130 with a resume command, and --resume completes the run with every row once', async () => {
    await writeRows(400);
    await simulator.close();
    simulator = await startSimulator(recording(sent, { latencyMs: 20 }));
    const { child, done } = startCli(['run', 'in.jsonl', ...baseArgs(), '--concurrency', '4'], { cwd: dir.path, env: env() });
    await waitFor(() => sent.length >= 20);
    child.kill('SIGINT');
    const stopped = await done;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toContain('--resume');
    const partial = await ids('out/output.jsonl');
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(400);
    expect(JSON.parse(await dir.read('out/manifest.json')).status).toBe('interrupted');

    const resumed = await runCli(['run', 'in.jsonl', ...baseArgs(), '--resume', '--concurrency', '16'], { cwd: dir.path, env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await ids('out/output.jsonl')).toEqual(Array.from({ length: 400 }, (_, i) => `r${i}`));
    expect(await dir.jsonl('out/errors.jsonl')).toEqual([]);
  });

  it('a second SIGINT exits at once, and --resume still completes the run', async () => {
    await writeRows(50);
    await simulator.close();
    simulator = await startSimulator(recording(sent, { latencyMs: 3000 }));
    const { child, done, stderr } = startCli(['run', 'in.jsonl', ...baseArgs(), '--concurrency', '4', '--grace-ms', '20000'], {
      cwd: dir.path,
      env: env(),
    });
    await waitFor(() => sent.length >= 1);
    const started = Date.now();
    child.kill('SIGINT');
    await waitFor(() => stderr().includes('SIGINT received: finishing in-flight requests'));
    child.kill('SIGINT');
    const stopped = await done;
    expect(stopped.code).toBe(130);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(stopped.stderr).toContain('stopped at once');
    await simulator.close();
    simulator = await startSimulator(recording(sent));
    const resumed = await runCli(['run', 'in.jsonl', ...baseArgs(), '--resume'], { cwd: dir.path, env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await ids('out/output.jsonl')).toEqual(Array.from({ length: 50 }, (_, i) => `r${i}`));
  });

  it('survives three SIGKILLs at random moments: every row once, in order, at most the open rows sent twice', async () => {
    // Sized so the three kills (each 100 to 400 requests after the last) leave rows for the last run.
    const rows = 1500;
    const concurrency = 16;
    await writeRows(rows);
    for (let kill = 0; kill < 3; kill++) {
      const target = sent.length + 100 + Math.floor(Math.random() * 300);
      const { child, done } = startCli(['run', 'in.jsonl', ...baseArgs(), '--concurrency', String(concurrency), '--resume'], {
        cwd: dir.path,
        env: env(),
      });
      await waitFor(() => sent.length >= target || child.exitCode !== null);
      child.kill('SIGKILL');
      await done;
    }
    const final = await runCli(['run', 'in.jsonl', ...baseArgs(), '--concurrency', String(concurrency), '--resume'], {
      cwd: dir.path,
      env: env(),
    });
    expect(final.code, final.stderr).toBe(0);
    expect(await ids('out/output.jsonl')).toEqual(Array.from({ length: rows }, (_, i) => `r${i}`));
    // Rows sent more than once: only those in flight or answered but not yet in the journal at a
    // kill. Both are open rows, at most the concurrency plus max(8, concurrency / 4) at a time.
    const perRow = new Map<string, number>();
    for (const id of sent) {
      const row = id.replace(/-\d+$/, '');
      perRow.set(row, (perRow.get(row) ?? 0) + 1);
    }
    const twice = [...perRow.values()].filter((n) => n > 1).length;
    expect(perRow.size).toBe(rows);
    expect(twice).toBeLessThanOrEqual(3 * (concurrency + 8));
  }, 60_000);

  it('a second process on the same output directory refuses while the first completes', async () => {
    await writeRows(300);
    await simulator.close();
    simulator = await startSimulator(recording(sent, { latencyMs: 10 }));
    const first = startCli(['run', 'in.jsonl', ...baseArgs(), '--concurrency', '4'], { cwd: dir.path, env: env() });
    await waitFor(() => sent.length >= 5);
    const second = await runCli(['run', 'in.jsonl', ...baseArgs(), '--resume'], { cwd: dir.path, env: env() });
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('another chatbatch process');
    const firstResult = await first.done;
    expect(firstResult.code, firstResult.stderr).toBe(0);
    expect((await ids('out/output.jsonl')).length).toBe(300);
  });
});

describe('response cache', () => {
  it('a second run with --cache sends zero requests and writes identical replies', async () => {
    await writeRows(25);
    const first = await runCli(['run', 'in.jsonl', ...baseArgs(), '--cache', 'cache'], { cwd: dir.path, env: env() });
    expect(first.code, first.stderr).toBe(0);
    expect(sent).toHaveLength(25);
    sent.length = 0;
    const second = await runCli(['run', 'in.jsonl', '--base-url', simulator.url, '--model', 'sim', '--out', 'out2', '--cache', 'cache'], {
      cwd: dir.path,
      env: env(),
    });
    expect(second.code, second.stderr).toBe(0);
    expect(sent).toHaveLength(0);
    const a = await dir.jsonl<{ id: string; reply: string; cached?: boolean }>('out/output.jsonl');
    const b = await dir.jsonl<{ id: string; reply: string; cached?: boolean }>('out2/output.jsonl');
    expect(b.map((r) => [r.id, r.reply])).toEqual(a.map((r) => [r.id, r.reply]));
    expect(b.every((r) => r.cached === true)).toBe(true);
    expect(a.some((r) => r.cached)).toBe(false);
  });
});
