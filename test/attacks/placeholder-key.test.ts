import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../src/index.js';
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
let server: ScriptedServer;
const REPLY = '{"answer": "none", "reason": "none of the options"}';

beforeEach(async () => {
  dir = await makeTempDir();
  // A keyless local server (vLLM, Ollama, llama.cpp): it checks no key, and its replies say "none".
  server = await startScriptedServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: REPLY }, finish_reason: 'stop' }] }));
  });
});
afterEach(async () => {
  await server.close();
  await dir.remove();
});

describe('a placeholder key (CHATBATCH_API_KEY=none) is not a secret to rewrite replies for', () => {
  it('keeps a reply saying "none" verbatim, and a schema-valid JSON reply valid, sent once', async () => {
    const input = await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'pick one' }]));
    const schema = await dir.write(
      'schema.json',
      JSON.stringify({ type: 'object', properties: { answer: { enum: ['none', 'some'] } }, required: ['answer'] }),
    );
    const report = await run({
      inputs: [input],
      model: 'local',
      baseUrl: server.baseUrl,
      apiKey: 'none',
      out: dir.file('out'),
      replySchema: schema,
    });
    expect(report.exitCode).toBe(0);
    const [record] = await dir.jsonl<{ reply: string; key_mask: string }>('out/output.jsonl');
    expect(record!.reply).toBe(REPLY);
    expect(server.received).toHaveLength(1);
    expect(server.received[0]!.headers.authorization).toBe('Bearer none');
  });
});

describe('which values are secrets', () => {
  it('masks a value of 8 characters or more, and leaves text holding a shorter one as it is', async () => {
    const { Redactor, MIN_SECRET_LENGTH } = await import('../../src/record/redactor.js');
    expect(MIN_SECRET_LENGTH).toBe(8);
    const redactor = new Redactor();
    redactor.addSecret('EMPTY');
    redactor.addSecret('sk-12345');
    expect(redactor.redact('EMPTY or none, key sk-12345')).toBe('EMPTY or none, key [key …45]');
  });
});

describe("Azure's api-version is public, not a secret", () => {
  it('keeps a reply that mentions the api-version date verbatim', async () => {
    const key = 'sk-azure-version-0000000000';
    const version = '2024-06-01';
    const dated = await startScriptedServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'x-echo': key });
      response.end(
        JSON.stringify({ choices: [{ message: { role: 'assistant', content: `released on ${version}` }, finish_reason: 'stop' }] }),
      );
    });
    try {
      const input = await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'when?' }]));
      const report = await run({
        inputs: [input],
        model: 'm',
        baseUrl: `${dated.baseUrl}?api-version=${version}`,
        apiKey: key,
        out: dir.file('out'),
      });
      expect(report.exitCode).toBe(0);
      const [record] = await dir.jsonl<{ reply: string }>('out/output.jsonl');
      expect(record!.reply).toBe(`released on ${version}`);
      expect(dated.received[0]!.url).toBe(`/v1/chat/completions?api-version=${version}`);
    } finally {
      await dated.close();
    }
  });
});
