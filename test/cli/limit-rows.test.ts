import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { readJournalView } from '../support/record-files.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir();
  await dir.write('in.jsonl', jsonlOf(Array.from({ length: 30 }, (_, i) => ({ id: `r${i}`, prompt: `hello ${i}` }))));
});
afterEach(async () => {
  await dir.remove();
});

const RUN = ['run', 'in.jsonl', '--simulate', '--model', 'm1', '--model', 'm2', '--out', 'out'];

describe('--limit N: try a job on its first rows', () => {
  it('sends the first N rows to every model, leaves the rest pending (exit 4), and says how to do the rest', async () => {
    const first = await runCli([...RUN, '--limit', '5'], { cwd: dir.path });
    expect(first.code, first.stderr).toBe(4);
    const output = await dir.jsonl<{ id: string; model: string }>('out/output.jsonl');
    expect(output.map((record) => `${record.id} ${record.model}`)).toEqual(
      ['r0', 'r1', 'r2', 'r3', 'r4'].flatMap((id) => [`${id} m1`, `${id} m2`]),
    );
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.status).toBe('stopped_at_limit');
    expect(manifest.counts).toMatchObject({ rows: 60, succeeded: 10, pending: 50 });
    expect(first.stderr).toContain('stopped after the first 5 row(s), as --limit 5 asked; 50 pending (not sent)');
    // The command it gives is the one to run: the same, --resume, no --limit.
    const command = /to do the rest, resume without --limit:\n {2}(.*)\n/.exec(first.stderr)?.[1] ?? '';
    expect(command).toMatch(/ run in\.jsonl --simulate --model m1 --model m2 --out out --resume$/);
    expect(command).not.toContain('--limit');

    const rest = await runCli([...RUN, '--resume'], { cwd: dir.path });
    expect(rest.code, rest.stderr).toBe(0);
    expect(await dir.jsonl('out/output.jsonl')).toHaveLength(60);
    const resumed = JSON.parse(await dir.read('out/manifest.json'));
    expect(resumed.status).toBe('complete');
    // The first five rows were not sent again.
    expect(resumed.sessions.at(-1).rows_settled).toBe(50);
  });

  it('a limit past the end of the input is no stop; --dry-run counts the rows a run would send; 0 is refused', async () => {
    expect((await runCli([...RUN, '--limit', '30', '--quiet'], { cwd: dir.path })).code).toBe(0);
    const dry = await runCli([...RUN, '--limit', '3', '--dry-run'], { cwd: dir.path });
    expect(dry.stdout).toContain('1 file(s), 3 row(s): 3 valid, 0 invalid');
    const zero = await runCli([...RUN, '--limit', '0', '--force'], { cwd: dir.path });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/--limit/);
  });

  it('leaves a journal of references at rest; a resume with a smaller limit keeps the later records, and the rest is sent once', async () => {
    expect((await runCli([...RUN, '--limit', '10', '--quiet'], { cwd: dir.path })).code).toBe(4);
    // The compacted journal: a reference to each of the 20 records written, no copy of them.
    const view = await readJournalView(dir.file('out'));
    expect(view.parsed.filter((line) => line?.kind === 'reference')).toHaveLength(20);

    // Fewer rows than done already: nothing to send, and the records past the limit are not dropped.
    const smaller = await runCli([...RUN, '--limit', '4', '--resume', '--quiet'], { cwd: dir.path });
    expect(smaller.code, smaller.stderr).toBe(4);
    expect(await dir.jsonl('out/output.jsonl')).toHaveLength(20);
    expect(JSON.parse(await dir.read('out/manifest.json')).sessions.at(-1).rows_settled).toBe(0);

    const rest = await runCli([...RUN, '--resume', '--quiet'], { cwd: dir.path });
    expect(rest.code, rest.stderr).toBe(0);
    const output = await dir.jsonl<{ id: string; model: string }>('out/output.jsonl');
    expect(new Set(output.map((record) => `${record.id} ${record.model}`)).size).toBe(60);
    expect(JSON.parse(await dir.read('out/manifest.json')).sessions.at(-1).rows_settled).toBe(40);
  });
});
