import { cp, readdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';

const ROOT = new URL('../../', import.meta.url).pathname;
let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir();
  await cp(`${ROOT}jobs`, dir.file('jobs'), { recursive: true });
  await cp(`${ROOT}samples`, dir.file('samples'), { recursive: true });
});
afterEach(async () => {
  await dir.remove();
});

describe('run --dry-run --simulate', () => {
  it('checks every shipped job against the simulator with no base URL, no key and no server started', async () => {
    const jobs = (await readdir(dir.file('jobs'))).filter((name) => name.endsWith('.json'));
    expect(jobs).toContain('enrich-products.json');
    for (const name of jobs) {
      const result = await runCli(['run', '--job', `jobs/${name}`, '--dry-run', '--simulate'], { cwd: dir.path });
      expect(result.code, `${name}: ${result.stderr}`).toBe(0);
      expect(result.stdout).toContain('dry run: nothing was sent');
      expect(result.stdout).toContain(
        'endpoint: the built-in simulator (--simulate: a run starts it on a free loopback port; replies are simulated)',
      );
      expect(result.stdout).toContain('key: none needed');
      expect(result.stderr).not.toContain('started the built-in simulator');
    }
    expect((await readdir(dir.path)).sort()).toEqual(['jobs', 'samples']);
  });
});
