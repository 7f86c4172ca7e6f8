import { afterEach, describe, expect, it } from 'vitest';
import { runApiProgram } from '../support/api-program.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

const PROGRAM = `
import { writeFileSync } from 'node:fs';
import { run, NothingSentError } from 'chatbatch';
import { startSimulator } from './dist/simulator/server.js';
const work = process.env.WORK;
const simulator = await startSimulator({ apiKey: 'sk-api-test-1234567890' });
const seen = [];
const report = await run({
  inputs: [work + '/rows.jsonl'], model: 'sim-model', baseUrl: simulator.url, apiKey: 'sk-api-test-1234567890',
  out: work + '/out', concurrency: 2, onProgress: (p) => seen.push(p.settled),
});
let refused = null;
try {
  await run({ inputs: [work + '/rows.jsonl'], model: 'sim-model', baseUrl: simulator.url, apiKey: 'k', out: work + '/out' });
} catch (error) {
  refused = { isNothingSent: error instanceof NothingSentError, explained: error.explain() };
}
await simulator.close();
writeFileSync(work + '/result.json', JSON.stringify({ report, lastProgress: seen.at(-1), refused }));
`;

describe("import { run } from 'chatbatch'", () => {
  let dir: TempDir;
  afterEach(async () => dir?.remove());

  it('runs a job to its report without writing to stdout or stderr, and refuses a second run in the same out dir with a typed error', async () => {
    dir = await makeTempDir();
    await dir.write(
      'rows.jsonl',
      jsonlOf([
        { id: 'a', prompt: 'one' },
        { id: 'b', prompt: 'two' },
        { id: 'c', prompt: 'three' },
      ]),
    );
    const result = await runApiProgram(PROGRAM, { WORK: dir.path });
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    const { report, lastProgress, refused } = JSON.parse(await dir.read('result.json'));
    expect(report).toMatchObject({ status: 'complete', exitCode: 0, rows: 3, succeeded: 3, failed: 0, pending: 0 });
    expect(lastProgress).toBe(3);
    expect((await dir.jsonl<{ id: string }>('out/output.jsonl')).map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(refused).toMatchObject({ isNothingSent: true, explained: expect.stringContaining('--resume') });
  });
});

const HEADERS_PROGRAM = `
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import { run } from 'chatbatch';
const work = process.env.WORK;
const received = [];
// A gateway that wants its own headers and echoes its key back in an error, as some do.
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received.push({ url: req.url, provider: req.headers['x-portkey-provider'], gatewayKey: req.headers['x-portkey-api-key'] });
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'bad_provider', message: 'refused key ' + req.headers['x-portkey-api-key'] } }));
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const report = await run({
  inputs: [work + '/rows.jsonl'], model: 'm', baseUrl: 'http://127.0.0.1:' + server.address().port + '/v1?api-version=1', apiKey: 'sk-api-test-1234567890',
  out: work + '/out', headers: ['x-portkey-provider: openai', 'x-portkey-api-key: \${PK}'], headerVariables: { PK: 'pk-api-gateway-secret-42' },
});
server.close();
writeFileSync(work + '/result.json', JSON.stringify({ report, received }));
`;

describe('run({ headers, headerVariables })', () => {
  let dir: TempDir;
  afterEach(async () => dir?.remove());

  it('sends the headers with the variables filled, and writes the filled values nowhere', async () => {
    dir = await makeTempDir();
    await dir.write('rows.jsonl', jsonlOf([{ id: 'a', prompt: 'one' }]));
    const result = await runApiProgram(HEADERS_PROGRAM, { WORK: dir.path });
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    const { report, received } = JSON.parse(await dir.read('result.json'));
    expect(report).toMatchObject({ status: 'finished_with_failures', failed: 1 });
    expect(received).toEqual([{ url: '/v1/chat/completions?api-version=1', provider: 'openai', gatewayKey: 'pk-api-gateway-secret-42' }]);
    const [failure] = await dir.jsonl<{ message: string }>('out/errors.jsonl');
    expect(failure!.message).toContain('refused key [header pk-a…t-42]');
    const manifest = await dir.read('out/manifest.json');
    expect(JSON.parse(manifest).config.headers).toEqual({ 'x-portkey-provider': 'openai', 'x-portkey-api-key': '${PK}' });
    expect(manifest + (await dir.read('out/errors.jsonl'))).not.toContain('pk-api-gateway-secret');
  });
});
