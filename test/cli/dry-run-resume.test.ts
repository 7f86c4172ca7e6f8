import { appendFile, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { perTestDir } from '../support/per-test.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

// `--dry-run --resume` says and estimates what the resume would send: the rows not settled yet
// and the failures --retry-failed names, not every valid row again ("the estimate for all 20
// valid row(s)" while 16 of the 40 requests were settled and kept).

let dir: TempDir;
perTestDir((fresh) => (dir = fresh));

const rows = Array.from({ length: 20 }, (_, i) => ({
  id: `r${i}`,
  // Row r3 gets Azure's content filter: a paid failure (category refused) that --retry-failed sends again.
  prompt: i === 3 ? 'question 03 [[sim:azure-filter]]' : `question ${String(i).padStart(2, '0')}`,
}));
const run = (...extra: string[]) =>
  runCli(['run', 'in.jsonl', '--simulate', '--model', 'a', '--model', 'b', '--price', '1/2', '--out', 'out', '--quiet', ...extra], {
    cwd: dir.path,
  });

describe('--dry-run of a --resume', () => {
  it('counts and estimates only what the resume would send, and writes nothing', async () => {
    await dir.write('in.jsonl', jsonlOf(rows));
    const whole = await run('--dry-run', '--max-total-tokens', '1000000');
    expect(whole.stdout).toContain('requests: 40 (20 valid row(s) × 2 models)');
    const first = await run('--limit', '8');
    expect(first.code, first.stderr).toBe(4);
    // A torn line at the journal's end (a kill mid-write): the resume cuts it, a dry run leaves it.
    const journal = dir.file('out/.chatbatch/journal.jsonl');
    await appendFile(journal, '{"torn');
    const { size } = await stat(journal);

    const dry = await run('--resume', '--retry-failed', '--dry-run', '--max-total-tokens', '1000000');
    expect(dry.code, dry.stderr).toBe(0);
    // 12 rows never sent, and r3's two failed copies: 26 requests; 14 settled copies kept.
    expect(dry.stdout).toContain('  requests: 26 a resume would send; 14 settled in out are kept, not sent again');
    expect(dry.stdout).toMatch(/the estimate for the 26 request\(s\) the resume would send, [\d,]+ \(prompts only[^)]*\), fits in/);
    expect((await stat(journal)).size).toBe(size);
    const tokens = (text: string) => Number(/estimated prompt tokens: ([\d,]+)/.exec(text)![1]!.replace(/,/g, ''));
    expect(tokens(dry.stdout)).toBeLessThan(tokens(whole.stdout));

    const resumed = await run('--resume', '--retry-failed');
    expect(resumed.code, resumed.stderr).toBe(1);
    const manifest = JSON.parse(await dir.read('out/manifest.json')) as { sessions: Array<{ attempts: number }> };
    expect(manifest.sessions[1]!.attempts).toBe(26);
  });
});
