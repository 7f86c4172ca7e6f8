import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir, type ServedDir } from '../support/per-test.js';
import { jsonlOf } from '../support/temp-dir.js';

// Issue 42, item 3: a value equal to one of the run's secrets is masked wherever the run writes
// it, the manifest's config included. The shell fills `$KEY` in before chatbatch sees it, so the
// run knows only that the value equals its key.

let served: ServedDir;
perTestServedDir((fresh) => (served = fresh));

const KEY = 'sk-by-value-0123456789abcdefXYZ';
const BODY_KEY = 'gw-body-key-9876543210fedcbaQRS';
const HEADER_KEY = 'pk-literal-header-key-5555555555';

/** Every file under `dir`, read as text. */
async function everyFile(dir: string): Promise<Array<[string, string]>> {
  const names = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
  return Promise.all(
    names.map(async (entry) => [entry.name, await readFile(path.join(entry.parentPath, entry.name), 'utf8')] as [string, string]),
  );
}

describe('secrets by value', () => {
  it('masks the key given again as a header value or a --param, and a credential --param, in every file and line the run writes', async () => {
    await served.dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'hello' }]));
    const args = [
      'in.jsonl',
      '--base-url',
      served.server.baseUrl,
      '--model',
      'm',
      '--header',
      `api-key: ${KEY}`,
      '--header',
      `x-portkey-api-key: ${HEADER_KEY}`,
    ];
    const secretParams = ['--param', `api_key=${KEY}`, '--param', `gateway_token=${BODY_KEY}`, '--allow-param', 'gateway_token'];
    const env = { CHATBATCH_API_KEY: KEY };
    const result = await runCli(['run', ...args, ...secretParams, '--out', 'out', '--log-format', 'json', '--format', 'csv'], {
      cwd: served.dir.path,
      env,
    });
    expect(result.code, result.stderr).toBe(0);
    // Sent as given: only the files and lines are masked.
    expect(served.server.received[0]!.headers['api-key']).toBe(KEY);
    expect(JSON.parse(served.server.received[0]!.body)).toMatchObject({ api_key: KEY, gateway_token: BODY_KEY });
    const written = await everyFile(served.dir.file('out'));
    expect(written.length).toBeGreaterThan(3);
    for (const [name, text] of written) {
      expect(text, name).not.toContain(KEY);
      expect(text, name).not.toContain(BODY_KEY);
      expect(text, name).not.toContain(HEADER_KEY);
    }
    const manifest = JSON.parse(await served.dir.read('out/manifest.json')) as {
      config: { headers: Record<string, string>; params: Record<string, string> };
    };
    expect(manifest.config.headers['api-key']).toMatch(/^\[.*…/);
    expect(manifest.config.params.api_key).toMatch(/^\[.*…/);
    for (const line of [result.stdout, result.stderr]) {
      expect(line).not.toContain(KEY);
      expect(line).not.toContain(BODY_KEY);
    }

    const dry = await runCli(['run', ...args, ...secretParams, '--out', 'dry', '--dry-run'], { cwd: served.dir.path, env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('first request body');
    expect(dry.stdout + dry.stderr).not.toContain(KEY);
    expect(dry.stdout + dry.stderr).not.toContain(BODY_KEY);
    expect(dry.stdout + dry.stderr).not.toContain(HEADER_KEY);
  });
});
