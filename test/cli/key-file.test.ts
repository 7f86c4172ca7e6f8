import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { replyWithEcho, type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

const FILE_KEY = 'sk-from-a-secret-file-0123456789';
let dir: TempDir;
let server: ScriptedServer;

beforeEach(async () => {
  dir = await makeTempDir();
  // Row "bad" fails, so an error record shows how the key is named.
  server = await startScriptedServer((request, response, index) => {
    if (request.json?.messages?.at(-1)?.content === 'bad') sendJson(response, 400, { error: { code: 'invalid_request', message: 'no' } });
    else replyWithEcho(request, response, index);
  });
  await dir.write(
    'in.jsonl',
    jsonlOf([
      { id: 'a', prompt: 'good' },
      { id: 'b', prompt: 'bad' },
    ]),
  );
});
afterEach(async () => {
  await server.close();
  await dir.remove();
});

function run(args: string[], env: Record<string, string | undefined>) {
  return runCli(['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', ...args], { cwd: dir.path, env });
}

async function everythingWritten(folder: string): Promise<string> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(
    entries.filter((entry) => entry.isFile()).map((entry) => readFile(path.join(entry.parentPath, entry.name), 'utf8')),
  );
  return texts.join('\n');
}

describe('the API key read from a file (Docker and Kubernetes secrets)', () => {
  it('--api-key-file: the key saved with CRLF is trimmed and sent; records and manifest name the file, never its content', async () => {
    await dir.write('key.txt', `${FILE_KEY}\r\n`);
    const result = await run(['--api-key-file', 'key.txt'], { CHATBATCH_API_KEY: undefined });
    expect(result.code, result.stderr).toBe(1);
    expect(server.received.map((request) => request.headers.authorization)).toEqual([`Bearer ${FILE_KEY}`, `Bearer ${FILE_KEY}`]);
    const [failure] = await dir.jsonl<{ key_name: string; key_mask: string }>('out/errors.jsonl');
    expect(failure).toMatchObject({ key_name: 'key.txt', key_mask: 'sk-f…6789' });
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.config).toMatchObject({ apiKeyFile: 'key.txt', apiKeyEnv: null });
    expect(await everythingWritten(dir.file('out'))).not.toContain(FILE_KEY);
  });

  it("CHATBATCH_API_KEY_FILE names the file when no flag does, over the job's own key", async () => {
    await mkdir(dir.file('run/secrets'), { recursive: true });
    await dir.write('run/secrets/chatbatch', `${FILE_KEY}\n`);
    await dir.write('job.json', JSON.stringify({ api_key_env: 'JOB_KEY' }));
    const result = await run(['--job', 'job.json'], {
      CHATBATCH_API_KEY_FILE: dir.file('run/secrets/chatbatch'),
      JOB_KEY: 'sk-job-key-not-this-one',
    });
    expect(result.code, result.stderr).toBe(1);
    expect(server.received[0]!.headers.authorization).toBe(`Bearer ${FILE_KEY}`);
  });

  it("a job's api_key_file is relative to the job file and outranks CHATBATCH_API_KEY", async () => {
    await mkdir(dir.file('jobs'));
    await dir.write('jobs/key', `${FILE_KEY}\n`);
    await dir.write('jobs/job.json', JSON.stringify({ api_key_file: 'key' }));
    const result = await run(['--job', 'jobs/job.json'], { CHATBATCH_API_KEY: 'sk-environment-not-this-one' });
    expect(result.code, result.stderr).toBe(1);
    expect(server.received[0]!.headers.authorization).toBe(`Bearer ${FILE_KEY}`);
    const [failure] = await dir.jsonl<{ key_name: string }>('out/errors.jsonl');
    expect(failure!.key_name).toBe(path.join('jobs', 'key'));
  });

  it.each([
    [
      'a missing key file',
      ['--api-key-file', 'nowhere/key.txt'],
      {},
      'cannot start the run: cannot read the API key file nowhere/key.txt: does not exist (ENOENT)',
    ],
    ['a folder as key file', ['--api-key-file', '.'], {}, 'cannot read the API key file .: it is a folder'],
    [
      'an empty key file',
      ['--api-key-file', 'empty.txt'],
      {},
      'the API key file empty.txt is empty (only whitespace): write the key in it',
    ],
    [
      'both CHATBATCH_API_KEY_FILE and CHATBATCH_API_KEY',
      [],
      { CHATBATCH_API_KEY_FILE: 'key.txt', CHATBATCH_API_KEY: 'sk-x' },
      'CHATBATCH_API_KEY_FILE and CHATBATCH_API_KEY are both set: unset one',
    ],
    [
      'both --api-key-file and --api-key-env',
      ['--api-key-file', 'key.txt', '--api-key-env', 'K'],
      { K: 'sk-x' },
      'give --api-key-file or --api-key-env, not both',
    ],
  ])('refuses %s with exit 2, sending nothing', async (_name, flags, env, says) => {
    await dir.write('key.txt', FILE_KEY);
    await dir.write('empty.txt', '\n');
    const result = await run(flags, env);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(says);
    expect(result.stderr).not.toContain(FILE_KEY);
    expect(server.received).toHaveLength(0);
  });

  it('--dry-run needs no key, so a key file it cannot read is named, not refused', async () => {
    const result = await run(['--api-key-file', 'nowhere/key.txt', '--dry-run'], {});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('  key: file nowhere/key.txt (not read: missing, unreadable or empty)');
    expect(server.received).toHaveLength(0);
  });

  it('a local server that checks no key runs with any non-empty key, e.g. CHATBATCH_API_KEY=none', async () => {
    const result = await run([], { CHATBATCH_API_KEY: 'none' });
    expect(result.code, result.stderr).toBe(1);
    expect(server.received.map((request) => request.headers.authorization)).toEqual(['Bearer none', 'Bearer none']);
  });
});
