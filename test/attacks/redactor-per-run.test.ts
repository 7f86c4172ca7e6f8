import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../src/index.js';
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

const KEY_A = 'sk-run-a-0123456789abcdefghijklmnop';
const KEY_B = 'sk-run-b-9876543210zyxwvutsrqponmlk';
const other = (key: string) => (key === KEY_A ? KEY_B : KEY_A);

let dir: TempDir;
let server: ScriptedServer;

beforeEach(async () => {
  dir = await makeTempDir();
  // Echoes the caller's key in a reply, a header and an error message, and quotes the other run's key as plain text.
  server = await startScriptedServer((request, response) => {
    const key = String(request.headers.authorization).replace('Bearer ', '');
    if (request.json?.messages?.at(-1)?.content === 'fail') {
      response.writeHead(400, { 'content-type': 'application/json', 'x-echo': key });
      response.end(JSON.stringify({ error: { code: 'bad_row', message: `rejected for ${key}; see ${other(key)}` } }));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json', 'x-echo': key });
    const content = `mine: ${key}; theirs: ${other(key)}`;
    response.end(JSON.stringify({ id: `r-${key}`, choices: [{ message: { role: 'assistant', content }, finish_reason: 'stop' }] }));
  });
});
afterEach(async () => {
  await server.close();
  await dir.remove();
});

/** Every file the run wrote under `out`, as one text. */
async function everythingWritten(out: string): Promise<string> {
  const files = await readdir(out, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(files.filter((f) => f.isFile()).map((f) => readFile(path.join(f.parentPath, f.name), 'utf8')));
  return texts.join('\n');
}

describe('each run has its own redactor', () => {
  it("masks its own key everywhere and leaves another run's key, as text, alone: two runs at once in one process", async () => {
    const input = await dir.write(
      'in.jsonl',
      jsonlOf([
        { id: 'ok', prompt: 'hello' },
        { id: 'bad', prompt: 'fail' },
      ]),
    );
    const runWith = async (key: string, out: string) => {
      const notices: string[] = [];
      const report = await run({
        inputs: [input],
        model: 'm',
        baseUrl: server.baseUrl,
        apiKey: key,
        out: dir.file(out),
        onNotice: (line) => notices.push(line),
      });
      return { report, notices, written: await everythingWritten(dir.file(out)) };
    };
    const [a, b] = await Promise.all([runWith(KEY_A, 'out-a'), runWith(KEY_B, 'out-b')]);
    expect(server.received).toHaveLength(4);
    for (const [key, result, out] of [
      [KEY_A, a, 'out-a'],
      [KEY_B, b, 'out-b'],
    ] as const) {
      expect(result.report.succeeded).toBe(1);
      expect(result.report.failed).toBe(1);
      expect(result.written).not.toContain(key);
      expect(result.written).not.toContain(key.slice(0, 20));
      expect(result.notices.join('\n')).not.toContain(key);
      const [success] = await dir.jsonl<{ reply: string }>(`${out}/output.jsonl`);
      const [failure] = await dir.jsonl<{ message: string }>(`${out}/errors.jsonl`);
      expect(success!.reply).toBe(`mine: [key ${key.slice(0, 4)}…${key.slice(-4)}]; theirs: ${other(key)}`);
      expect(failure!.message).toContain(`see ${other(key)}`);
      expect(failure!.message).not.toContain(key);
    }
  });

  it("does not keep an earlier run's key: a later run writes it as the text it is", async () => {
    const input = await dir.write('in.jsonl', jsonlOf([{ id: 'ok', prompt: 'hello' }]));
    await run({ inputs: [input], model: 'm', baseUrl: server.baseUrl, apiKey: KEY_A, out: dir.file('first') });
    await run({ inputs: [input], model: 'm', baseUrl: server.baseUrl, apiKey: KEY_B, out: dir.file('second') });
    const [first] = await dir.jsonl<{ reply: string }>('first/output.jsonl');
    const [second] = await dir.jsonl<{ reply: string }>('second/output.jsonl');
    expect(first!.reply).toBe(`mine: [key sk-r…mnop]; theirs: ${KEY_B}`);
    expect(second!.reply).toBe(`mine: [key sk-r…nmlk]; theirs: ${KEY_A}`);
  });
});
