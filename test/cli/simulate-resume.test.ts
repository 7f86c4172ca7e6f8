import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir();
  await dir.write('in.jsonl', jsonlOf(Array.from({ length: 6 }, (_, i) => ({ id: `s${i}`, prompt: `prompt ${i}` }))));
});
afterEach(async () => {
  await dir.remove();
});

// --simulate starts its endpoint on a new free port each run; the port must not count as a
// change of request, or resume and the cache would never apply to simulated runs.
const simulate = (...extra: string[]) =>
  runCli(['run', 'in.jsonl', '--simulate', '--model', 'sim', '--quiet', ...extra], { cwd: dir.path });

describe('runs against the built-in simulator', () => {
  it('--resume of a finished simulated run reuses every row and sends nothing', async () => {
    expect((await simulate('--out', 'out')).code).toBe(0);
    const output = await dir.read('out/output.jsonl');
    const manifestText = await dir.read('out/manifest.json');
    const again = await simulate('--out', 'out', '--resume');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('sent again');
    expect(again.stderr).toContain('0 settled in this run');
    // Nothing settled: the manifest is left as it was (a session that changes nothing is not recorded).
    expect(await dir.read('out/manifest.json')).toBe(manifestText);
    expect(JSON.parse(manifestText).config.baseUrl).toBe('simulator://built-in');
    expect(await dir.read('out/output.jsonl')).toBe(output);
  });

  it('a second simulated run with --cache is served from the cache', async () => {
    expect((await simulate('--out', 'a', '--cache', 'cache')).code).toBe(0);
    expect((await simulate('--out', 'b', '--cache', 'cache')).code).toBe(0);
    const first = await dir.jsonl<{ id: string; reply: string; cached?: boolean }>('a/output.jsonl');
    const second = await dir.jsonl<{ id: string; reply: string; cached?: boolean }>('b/output.jsonl');
    expect(second.map((r) => [r.id, r.reply])).toEqual(first.map((r) => [r.id, r.reply]));
    expect(second.every((r) => r.cached === true)).toBe(true);
  });
});
