import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

/**
 * The command as a user runs it, against the simulator playing providers' own answers
 * (docs/simulator.md#providers-answers): what the user sees of a dialect, its exit code and
 * message. The engine-level cases are in test/run/provider-dialects.test.ts.
 */
let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir();
  await dir.write('in.jsonl', jsonlOf(Array.from({ length: 20 }, (_, i) => ({ id: `r${i}`, prompt: `ask ${i}` }))));
});
afterEach(async () => dir.remove());

const run = (...extra: string[]) =>
  runCli(['run', 'in.jsonl', '--simulate', '--model', 'sim', '--out', 'out', '--quiet', ...extra], { cwd: dir.path });

describe('providers answers through the command', () => {
  it("LiteLLM's over-budget key stops the run with exit 3, naming the budget, rows pending", async () => {
    const result = await run('--system', '[[sim:litellm-budget]]');
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('budget_exceeded');
    expect(result.stderr).toContain("the account's balance, quota or budget");
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.counts).toMatchObject({ rows: 20, pending: 20, failed: 0 });
  });

  it('a parameter every request carries, refused by the endpoint, stops the run naming it', async () => {
    const result = await run('--system', '[[sim:unsupported-temperature]]', '--param', 'temperature=0.5');
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("the parameter 'temperature' that every request carries");
  });

  it('a reasoning model out of max_tokens: exit 1, the row failed once with its reasoning; the summary counts its tokens', async () => {
    await dir.write(
      'in.jsonl',
      jsonlOf([
        { id: 'a', prompt: 'ask' },
        { id: 'b', prompt: 'think [[sim:reasoning-length]]' },
      ]),
    );
    const result = await run('--max-attempts', '5');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('64 of the completion reasoning');
    const errors = await dir.jsonl<{ id: string; code: string; attempts: number; reasoning: string }>('out/errors.jsonl');
    expect(errors).toEqual([expect.objectContaining({ id: 'b', code: 'length', attempts: 1, reasoning: 'Thinking it through...' })]);
  });
});
