import { access } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir } from '../support/per-test.js';
import type { ScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
let server: ScriptedServer;
perTestServedDir((fresh) => ({ dir, server } = fresh));

const KEY = 'sk-test-preflight';
const run = (args: string[]) =>
  runCli(['run', ...args, '--base-url', server.baseUrl, '--model', 'm', '--out', 'out'], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: KEY },
  });

async function exists(name: string): Promise<boolean> {
  return access(dir.file(name)).then(
    () => true,
    () => false,
  );
}

interface Rec {
  id: string;
  line: number;
  reply: string | null;
  code: string | null;
  message?: string;
  attempts: number;
}

describe('exit 2 means nothing was sent: every input header is checked before the first request', () => {
  it('stops before any request when a CSV that is not the first input repeats a column name', async () => {
    await dir.write(
      'a.jsonl',
      jsonlOf([
        { id: 'a1', prompt: 'x' },
        { id: 'a2', prompt: 'y' },
        { id: 'a3', prompt: 'z' },
      ]),
    );
    await dir.write('b.csv', 'id,prompt,id\r\nb1,q,1\r\n');
    const result = await run(['a.jsonl', 'b.csv']);
    expect(result.code).toBe(2);
    expect(server.received).toHaveLength(0);
    expect(result.stderr).toContain('b.csv:1: the header names column "id" twice (columns 1 and 3); nothing was sent');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await exists('out/manifest.json')).toBe(false);
  });

  it('lists every unusable input at once, and --dry-run and validate refuse the same', async () => {
    await dir.write('a.csv', 'id,prompt\n1,x\n');
    await dir.write('b.csv', 'id,,prompt\n1,2,3\n');
    await dir.write('c.csv', '\r\nid,"prompt\n1,x\n');
    await dir.write('d.jsonl', jsonlOf([{ id: 'd1' }]));
    const result = await run(['a.csv', 'b.csv', 'c.csv', 'd.jsonl']);
    expect(result.code).toBe(2);
    expect(server.received).toHaveLength(0);
    expect(result.stderr).toContain(
      '2 input files cannot be used; nothing was sent:\n  b.csv:1: column 2 of the header has no name\n  c.csv:2: the header has a quoted field that is never closed\n',
    );

    const dry = await run(['a.csv', 'b.csv', 'c.csv', 'd.jsonl', '--dry-run']);
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain('b.csv:1: column 2 of the header has no name');

    // validate lists the header problems and still checks the rows of the files that can be read.
    await dir.write('job.json', JSON.stringify({ inputs: ['a.csv', 'b.csv', 'c.csv', 'd.jsonl'], model: 'm', base_url: server.baseUrl }));
    const checked = await runCli(['validate', 'job.json'], { cwd: dir.path });
    expect(checked.code).toBe(2);
    expect(checked.stdout).toContain('job.json: inputs: b.csv:1: column 2 of the header has no name');
    expect(checked.stdout).toContain('job.json: inputs: c.csv:2: the header has a quoted field that is never closed');
    expect(checked.stdout).toContain('d.jsonl:1: nothing to send');
    expect(checked.stdout).toContain('job.json: 3 problem(s), 2 row(s) read');
  });
});

describe('a problem found part way through a CSV is a row error, and the run goes on', () => {
  it('records a CSV record over 16 MiB in the middle as invalid_input naming file and line; the rows around it succeed', async () => {
    await dir.write('a.jsonl', jsonlOf([{ id: 'a1', prompt: 'first' }]));
    await dir.write('b.csv', `id,prompt\r\nb1,before\r\nb2,"${'long line\n'.repeat(1_700_000)}"\r\nb3,after\r\n`);
    await dir.write('c.csv', 'id,prompt\nc1,last\n');
    const result = await run(['a.jsonl', 'b.csv', 'c.csv', '--quiet']);
    expect(result.code, result.stderr).toBe(1);
    const output = await dir.jsonl<Rec>('out/output.jsonl');
    expect(output.map((r) => [r.id, r.line, r.reply])).toEqual([
      ['a1', 1, 'echo: first'],
      ['b1', 2, 'echo: before'],
      ['b3', 1_700_004, 'echo: after'],
      ['c1', 2, 'echo: last'],
    ]);
    const errors = await dir.jsonl<Rec>('out/errors.jsonl');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ id: 'b.csv:3', line: 3, code: 'invalid_input', attempts: 0 });
    expect(errors[0]!.message).toContain('b.csv:3: record longer than 16777216 bytes');
    expect(server.received).toHaveLength(4);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.status).toBe('finished_with_failures');
    expect(manifest.inputs.map((input: { rows: number }) => input.rows)).toEqual([1, 3, 1]);
  });
});
