import { mkdir, readFile, symlink } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../src/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
let simulator: RunningSimulator;
beforeEach(async () => {
  dir = await makeTempDir();
  simulator = await startSimulator();
  const input = await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'one' }]));
  await run({ inputs: [input], model: 'sim', baseUrl: simulator.url, apiKey: 'sk-report-test-000000', out: dir.file('out') });
});
afterEach(async () => {
  await simulator.close();
  await dir.remove();
});

describe('report --html FILE writes over no file it did not make for that purpose', () => {
  it('refuses the run journal, a record file and an input (exit 2), each left byte for byte', async () => {
    for (const target of ['out/.chatbatch/journal.jsonl', 'out/output.jsonl', 'in.jsonl']) {
      const before = await readFile(dir.file(target));
      const report = await runCli(['report', 'out', '--html', target], { cwd: dir.path });
      expect(report.code, target).toBe(2);
      expect(report.stderr).toContain(`--html ${target} exists and is not a page chatbatch report wrote`);
      expect(report.stdout).toBe('');
      expect(await readFile(dir.file(target))).toEqual(before);
    }
  });

  it('writes a new page, then over its own page (through a link too)', async () => {
    expect((await runCli(['report', 'out', '--html', 'report.html'], { cwd: dir.path })).code).toBe(0);
    await symlink(dir.file('report.html'), dir.file('latest.html'));
    const again = await runCli(['report', 'out', '--html', 'latest.html'], { cwd: dir.path });
    expect(again.code, again.stderr).toBe(0);
    expect(await dir.read('report.html')).toContain('<title>chatbatch report: ');
  });
});

describe('run --out writes over no file it did not make', () => {
  it('refuses a directory without a journal that holds an output.jsonl (a merge, another tool): exit 2, nothing sent; --force replaces it', async () => {
    const input = await dir.write('in2.jsonl', jsonlOf([{ id: 'b', prompt: 'two' }]));
    await mkdir(dir.file('theirs'));
    await dir.write('theirs/output.jsonl', '{"mine": true}\n');
    const options = { inputs: [input], model: 'sim', baseUrl: simulator.url, apiKey: 'sk-report-test-000000', out: dir.file('theirs') };
    simulator.resetStats();
    await expect(run(options)).rejects.toThrow(/theirs holds output\.jsonl, which no chatbatch run there wrote/);
    await expect(run({ ...options, resume: true })).rejects.toThrow(/--force/);
    expect(await dir.read('theirs/output.jsonl')).toBe('{"mine": true}\n');
    expect(simulator.stats().requests).toBe(0);
    expect((await run({ ...options, force: true })).exitCode).toBe(0);
  });
});
