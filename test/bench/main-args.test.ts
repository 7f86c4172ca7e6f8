import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BENCH = fileURLToPath(new URL('../../.bench/dist/bench/main.js', import.meta.url));

function runBench(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BENCH, ...args], { timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

// Only the refusals: they exit before anything is measured, so no timing enters the tests.
describe('npm run bench arguments', () => {
  it.each([
    [['--points', '--rounds', '2'], 'bench: --rounds is for the comparison; the points run once each'],
    [['--compare', '--only', 'mem'], 'bench: --compare and --points (or --only) are two different runs: choose one'],
    [['--rounds', '0'], 'bench: --rounds needs a positive integer, got "0"'],
    [['--fast'], 'bench: unknown argument --fast'],
    [
      ['--goodput', '--only', 'no such'],
      expect.stringMatching(/^bench: no goodput situation matches --only no such; the situations: RPM limit, headers, no flags, /),
    ],
  ])('%j exits 2 naming the problem', async (args, message) => {
    const result = await runBench(args);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toEqual(message);
    expect(result.stdout).toBe('');
  });
});
