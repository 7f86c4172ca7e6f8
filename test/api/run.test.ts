import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The programmatic API as a user's program sees it: `import { run } from 'chatbatch'` resolved
 * through package.json `exports` (Node resolves a package's own name from inside it), in a
 * process of its own, so that anything it wrote to stdout or stderr, or a process.exit, shows.
 */
function runScript(script: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot, env: { PATH: process.env.PATH ?? '', WORK: cwd } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

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
    await dir.write('rows.jsonl', jsonlOf([{ id: 'a', prompt: 'one' }, { id: 'b', prompt: 'two' }, { id: 'c', prompt: 'three' }]));
    const result = await runScript(PROGRAM, dir.path);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    const { report, lastProgress, refused } = JSON.parse(await dir.read('result.json'));
    expect(report).toMatchObject({ status: 'complete', exitCode: 0, rows: 3, succeeded: 3, failed: 0, pending: 0 });
    expect(lastProgress).toBe(3);
    expect((await dir.jsonl<{ id: string }>('out/output.jsonl')).map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(refused).toMatchObject({ isNothingSent: true, explained: expect.stringContaining('--resume') });
  });
});
