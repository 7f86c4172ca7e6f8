import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir } from '../support/per-test.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import type { TempDir } from '../support/temp-dir.js';

// Rows and keys an adversary (or an ordinary export) produces: numbers past a double's precision,
// formulas in a CSV header, and keys so short that they appear in every field name.

let dir: TempDir;
let server: ScriptedServer;
perTestServedDir(
  (fresh) => ({ dir, server } = fresh),
  (_request, response, index) =>
    sendJson(response, 200, {
      id: `chatcmpl-${index}`,
      choices: [{ index: 0, message: { role: 'assistant', content: `ok ${index}` }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    }),
);

const run = (args: string[], key = 'sk-hostile-inputs-key-000000') =>
  runCli(['run', ...args, '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--quiet'], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: key },
  });

const sentPrompts = () => server.received.map((r) => r.json?.messages?.at(-1)?.content);

describe('numbers as the row wrote them', () => {
  it('ids past 2^53 stay distinct and exact; nothing is a duplicate, every row is sent once', async () => {
    await dir.write(
      'in.jsonl',
      '{"id": 1234567890123456789, "prompt": "a"}\n{"id": 1234567890123456788, "prompt": "b"}\n{"id":1234567890123456790,"prompt":"c"}\n',
    );
    const result = await run(['in.jsonl']);
    expect(result.code, result.stderr).toBe(0);
    expect(server.received).toHaveLength(3);
    const ids = (await dir.jsonl<{ id: string }>('out/output.jsonl')).map((r) => r.id);
    expect(ids).toEqual(['1234567890123456789', '1234567890123456788', '1234567890123456790']);
  });

  it('template numbers are filled in as written: 1e21, 1.50, -0, a big integer inside a list', async () => {
    await dir.write(
      'in.jsonl',
      '{"id": "r1", "n": 1e21, "price": 1.50, "z": -0, "big": 12345678901234567890, "list": [1, 2.0, {"x": 98765432109876543210}], "plain": 12, "text": "1e5"}\n',
    );
    const result = await run(['in.jsonl', '--template', '{{n}} {{price}} {{z}} {{big}} {{list}} {{plain}} {{text}}']);
    expect(result.code, result.stderr).toBe(0);
    expect(sentPrompts()).toEqual(['1e21 1.50 -0 12345678901234567890 [1,2.0,{"x":98765432109876543210}] 12 1e5']);
  });
});

describe('CSV output of a hostile input', () => {
  it("a formula in the input's header is escaped in output.csv; the user's own cells stay as written", async () => {
    await dir.write('in.csv', 'id,"=HYPERLINK(""http://evil.example"",""x"")",prompt\nr1,=1+1,hello\n');
    const result = await run(['in.csv', '--format', 'csv']);
    expect(result.code, result.stderr).toBe(0);
    const [header, row] = parse(await dir.read('out/output.csv')) as string[][];
    expect(header![1]).toBe(`'=HYPERLINK("http://evil.example","x")`);
    expect(row![1]).toBe('=1+1');
  });
});

describe('a very short key', () => {
  it.each(['a', 'tokens'])('key %j never renames a field: usage and every record field keep their names', async (key) => {
    await dir.write('in.jsonl', '{"id": "r1", "prompt": "hello"}\n');
    const result = await run(['in.jsonl'], key);
    expect(result.code, result.stderr).toBe(0);
    const [record] = await dir.jsonl<Record<string, unknown>>('out/output.jsonl');
    expect(record!.usage).toEqual({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
    for (const field of ['id', 'file', 'line', 'model', 'reply', 'status', 'code', 'trace_id', 'attempts', 'started_at', 'duration_ms']) {
      expect(record).toHaveProperty(field);
    }
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
  });
});

describe('escape sequences in what a server says', () => {
  it('a refusal whose message holds terminal escapes reaches stderr with them visible, not raw', async () => {
    const refusing = await startScriptedServer((_request, response) =>
      sendJson(response, 401, { error: { code: 'invalid_api_key', message: 'bad key \u001b]0;pwned\u0007\u001b[2J gone' } }),
    );
    try {
      await dir.write('in.jsonl', '{"id": "r1", "prompt": "hello"}\n');
      const result = await runCli(['run', 'in.jsonl', '--base-url', refusing.baseUrl, '--model', 'm', '--out', 'out', '--quiet'], {
        cwd: dir.path,
        env: { CHATBATCH_API_KEY: 'sk-hostile-inputs-key-000000' },
      });
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toContain('\\u001b]0;pwned');
      expect(result.stderr).not.toContain('\u001b');
    } finally {
      await refusing.close();
    }
  });
});
