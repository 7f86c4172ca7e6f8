import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

describe('a reader that goes away (chatbatch run ... 2>&1 | head -1)', () => {
  let dir: TempDir;
  afterEach(async () => dir?.remove());

  it('does not turn the run into an internal error: it ends with its own exit code and writes its files', async () => {
    dir = await makeTempDir();
    await dir.write('in.jsonl', jsonlOf(Array.from({ length: 5 }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }))));
    // stdout and stderr go to one pipe whose reader closes before the run writes its first line.
    const child = spawn(process.execPath, [CLI, 'run', 'in.jsonl', '--simulate', '--model', 'sim-model', '--out', 'out'], {
      cwd: dir.path,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    child.stderr.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(await dir.jsonl('out/output.jsonl')).toHaveLength(5);
    expect(JSON.parse(await dir.read('out/manifest.json')).status).toBe('complete');
  });
});
