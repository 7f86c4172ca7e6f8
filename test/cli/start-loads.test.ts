import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { CLI, runCli } from '../support/cli.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

// Issue 44: a one-row run loads what it uses. Every module costs its start (~0.3 ms each of ours;
// a copy of string-width ~10 ms), so what only some runs use is loaded when they use it
// (docs/benchmarks.md). Spawned: what a process loaded is the process's.

const LIST = fileURLToPath(new URL('../support/loaded-modules.mjs', import.meta.url));
let dir: TempDir;
let simulator: RunningSimulator;
beforeAll(async () => {
  dir = await makeTempDir();
  simulator = await startSimulator({});
  await dir.write('one.jsonl', jsonlOf([{ id: 'r1', prompt: 'name one colour' }]));
});
afterAll(async () => {
  await simulator.close();
  await dir.remove();
});

async function loadedBy(...args: string[]): Promise<string[]> {
  const name = `loaded-${args[args.indexOf('--out') + 1]}.txt`;
  const result = await runCli(['--import', LIST, CLI, ...args], {
    command: process.execPath,
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: 'none', CHATBATCH_LOADED_MODULES: dir.file(name) },
  });
  expect(result.code, result.stderr).toBe(0);
  return (await dir.read(name)).split('\n').filter(Boolean);
}

describe('a one-row run loads what it uses', () => {
  it('one copy of string-width', async () => {
    const loaded = await loadedBy('run', 'one.jsonl', '--base-url', simulator.url, '--model', 'm', '--out', 'out', '--quiet');
    // The run did run: its engine and HTTP client were loaded.
    expect(loaded.some((path) => path.includes('/dist/run/run.js'))).toBe(true);
    expect(loaded.some((path) => path.includes('/node_modules/undici/'))).toBe(true);
    // yargs's text-width package once, not three copies (package.json's overrides): each copy
    // built its Unicode tables and an Intl.Segmenter again at start, ~20 ms of CPU.
    // Copies counted by the folder they load from, not by lines: yargs, cliui and wrap-ansi each
    // import it, and on a loaded machine the hook saw its one file three times in one run (the
    // suite beside two CPU hogs, a clean clone with a single copy installed).
    const copies = loaded.filter((path) => /\/string-width\/index\.js$/.test(path));
    const folders = new Set(copies.map((path) => dirname(path.startsWith('file:') ? fileURLToPath(path) : path)));
    expect([...folders], copies.join('\n')).toHaveLength(1);
  });
});
