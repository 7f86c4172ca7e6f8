import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir } from '../support/per-test.js';
import type { ScriptedServer } from '../support/scripted-server.js';
import { sendJson } from '../support/scripted-server.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

/**
 * The record contract: `file` and `line` say where the row starts in this run's input. A row with
 * an id that moved in an edited input (rows inserted above it, two rows swapped, the file renamed)
 * and whose earlier record is kept by --resume must say where it is now, not where it was.
 */

let dir: TempDir;
let server: ScriptedServer;

// Each reply is the prompt itself: a prompt that is JSON gives a reply that is.
perTestServedDir(
  (fresh) => ({ dir, server } = fresh),
  (request, response, index) => {
    const content = String(request.json?.messages?.at(-1)?.content ?? '');
    sendJson(response, 200, {
      id: `chatcmpl-${index}`,
      object: 'chat.completion',
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
  },
);

const env = { CHATBATCH_API_KEY: 'sk-moved-rows-test-key-0000' };
const run = (input: string, ...more: string[]) =>
  runCli(['run', input, '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', ...more], { cwd: dir.path, env });

interface Placed {
  id: string;
  file: string;
  line: number;
}

async function places(name: string): Promise<Record<string, string>> {
  const records = await dir.jsonl<Placed>(`out/${name}`);
  return Object.fromEntries(records.map((r) => [r.id, `${r.file}:${r.line}`]));
}

const rows = {
  a: { id: 'a', prompt: 'alpha' },
  b: { id: 'b', prompt: 'beta' },
  c: { id: 'c', prompt: 'gamma' },
  // No prompt: invalid_input, kept in errors.jsonl by a resume like any settled row.
  bad: { id: 'bad', text: 'no prompt field' },
};

describe('a kept record says where its row is now', () => {
  it('rows swapped and a row inserted above: the kept records take their new lines, only the new row is sent', async () => {
    await dir.write('in.jsonl', jsonlOf([rows.a, rows.b, rows.bad, rows.c]));
    expect((await run('in.jsonl')).code).toBe(1);
    expect(await places('output.jsonl')).toEqual({ a: 'in.jsonl:1', b: 'in.jsonl:2', c: 'in.jsonl:4' });
    expect(await places('errors.jsonl')).toEqual({ bad: 'in.jsonl:3' });

    await dir.write('in.jsonl', jsonlOf([{ id: 'new', prompt: 'delta' }, rows.c, rows.bad, rows.b, rows.a]));
    server.received.length = 0;
    const resumed = await run('in.jsonl', '--resume', '--format', 'csv');
    expect(resumed.code, resumed.stderr).toBe(1);
    expect(server.received).toHaveLength(1);
    expect(resumed.stderr).toContain('3 record(s) kept from an earlier session now say where their row is in this input (file, line)');
    expect(await places('output.jsonl')).toEqual({ new: 'in.jsonl:1', c: 'in.jsonl:2', b: 'in.jsonl:4', a: 'in.jsonl:5' });
    expect(await places('errors.jsonl')).toEqual({ bad: 'in.jsonl:3' });
    // The derived file matches records to rows by their place: every row has its reply there.
    const csv = parse(await dir.read('out/output.csv'), { columns: true }) as Record<string, string>[];
    expect(csv.map((r) => [r.id, r.reply])).toEqual([
      ['new', 'delta'],
      ['c', 'gamma'],
      ['b', 'beta'],
      ['a', 'alpha'],
    ]);

    // What this resume wrote verifies: the next one sends nothing and changes no byte.
    const files = ['out/output.jsonl', 'out/errors.jsonl', 'out/manifest.json'];
    const before = await Promise.all(files.map((f) => dir.read(f)));
    server.received.length = 0;
    const again = await run('in.jsonl', '--resume');
    expect(again.code, again.stderr).toBe(1);
    expect(again.stderr).not.toMatch(/damaged|changed since|no longer|now say where/i);
    expect(server.received).toHaveLength(0);
    expect(await Promise.all(files.map((f) => dir.read(f)))).toEqual(before);
  });

  it('the input renamed: the kept records name the file they are in now', async () => {
    await dir.write('old name.jsonl', jsonlOf([rows.a, rows.b]));
    expect((await run('old name.jsonl')).code).toBe(0);
    await dir.write('new "name".jsonl', jsonlOf([rows.b, rows.a]));
    server.received.length = 0;
    const resumed = await run('new "name".jsonl', '--resume');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(server.received).toHaveLength(0);
    expect(await places('output.jsonl')).toEqual({ b: 'new "name".jsonl:1', a: 'new "name".jsonl:2' });
  });

  it('an invalid_reply checked again without sending takes the row new line', async () => {
    const schema = (labels: string[]) => JSON.stringify({ type: 'object', properties: { label: { enum: labels } }, required: ['label'] });
    await dir.write('schema.json', schema(['yes']));
    const json = (id: string, label: string) => ({ id, prompt: JSON.stringify({ label }) });
    await dir.write('in.jsonl', jsonlOf([json('x', 'yes'), json('y', 'maybe')]));
    expect((await run('in.jsonl', '--reply-schema', 'schema.json', '--reply-retries', '0')).code).toBe(1);
    expect(await places('errors.jsonl')).toEqual({ y: 'in.jsonl:2' });

    await dir.write('schema.json', schema(['yes', 'maybe']));
    await dir.write('in.jsonl', jsonlOf([json('y', 'maybe'), json('x', 'yes')]));
    server.received.length = 0;
    const resumed = await run('in.jsonl', '--reply-schema', 'schema.json', '--resume');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(server.received).toHaveLength(0);
    expect(await places('output.jsonl')).toEqual({ y: 'in.jsonl:1', x: 'in.jsonl:2' });
  });
});
