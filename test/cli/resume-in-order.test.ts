import { describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { loadPreviousResults } from '../../src/state/previous-results.js';
import { startCli } from '../support/cli.js';
import { runCli } from '../support/cli-in-process.js';
import { closeBoth, perTest } from '../support/per-test.js';
import { runArgs } from '../support/run-args.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

// A resume of a finished run answers each row from the journal read beside the input, in order,
// with no table of results (earlier-results.ts). These check what that rests on (a finished
// run's journal is in input order) and that a resume keeps its promises either way.

let dir: TempDir;
let simulator: RunningSimulator;
/** The prompt of every request sent. */
let prompts: string[];

perTest(
  async () => {
    const fresh = await makeTempDir();
    const sent: string[] = [];
    const sim = await startSimulator({
      latencyMs: 2,
      latencyJitterMs: 6, // answers come back out of order
      onRequest: (request) => sent.push(JSON.parse(request.body).messages.at(-1).content),
    });
    return { dir: fresh, simulator: sim, sent, close: () => closeBoth(sim, fresh) };
  },
  (fresh) => ({ dir, simulator, sent: prompts } = fresh),
);

const env = { CHATBATCH_API_KEY: 'sk-in-order-test-key-0000' };
const args = (...extra: string[]) => runArgs(simulator.url, ...extra);

async function writeRows(ids: readonly string[], prompt = (id: string) => `prompt ${id}`): Promise<void> {
  await dir.write('in.jsonl', jsonlOf(ids.map((id) => ({ id, prompt: prompt(id) }))));
}

async function run(...extra: string[]) {
  const result = await runCli(args(...extra), { cwd: dir.path, env });
  expect(result.code, result.stderr).toBe(0);
  return result;
}

const outputIds = async () => (await dir.jsonl<{ id: string }>('out/output.jsonl')).map((record) => record.id);
const rows = (n: number) => Array.from({ length: n }, (_, i) => `r${i}`);

describe('a resume of a finished run, answered in journal order', () => {
  it("a finished run's journal is in its input order, though its rows settled out of order", async () => {
    await writeRows(rows(60));
    await run('--concurrency', '8');
    const out = dir.file('out');
    const previous = await loadPreviousResults({
      journal: `${out}/.chatbatch/journal.jsonl`,
      output: `${out}/output.jsonl`,
      errors: `${out}/errors.jsonl`,
    });
    const inOrder = await previous.byKey.checkOrder(async (ask) => {
      for (const id of rows(60)) ask(id);
      return true;
    });
    expect(inOrder).toBe(true);
    for (const id of rows(60)) expect(previous.byKey.get(id)).toBeDefined();
    expect(previous.byKey.answeredInOrder).toBe(true);
    previous.byKey.close();
  });

  it('rows added before, among and after the earlier ones are sent, and only they; the output follows the new input', async () => {
    await writeRows(rows(30));
    await run('--concurrency', '4');
    const ids = ['n0', ...rows(10), 'n1', ...rows(30).slice(10), 'n2'];
    await writeRows(ids);
    prompts.length = 0;
    await run('--resume');
    expect(prompts.sort()).toEqual(['prompt n0', 'prompt n1', 'prompt n2']);
    expect(await outputIds()).toEqual(ids);
  });

  it('the same rows in another order are not sent again (the table answers); the output follows the new input', async () => {
    await writeRows(rows(30));
    await run('--concurrency', '4');
    const ids = rows(30).reverse();
    await writeRows(ids);
    prompts.length = 0;
    await run('--resume');
    expect(prompts).toEqual([]);
    expect(await outputIds()).toEqual(ids);
  });

  it('a row taken out of the input is still refused as dropped, nothing sent', async () => {
    await writeRows(rows(10));
    await run();
    await writeRows(rows(10).filter((id) => id !== 'r4'));
    prompts.length = 0;
    const result = await runCli(args('--resume'), { cwd: dir.path, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("1 record(s) the earlier run wrote in out are of rows not in this run's inputs");
    expect(prompts).toEqual([]);
  });

  it('killed with kill -9 at random moments while it sends changed rows again: then every row once, in order, unchanged rows never sent', async () => {
    const ids = rows(400);
    await writeRows(ids);
    await run('--concurrency', '16');
    // Every other row's request changes: the resume sends those again, and keeps the others.
    const changed = (id: string) => Number(id.slice(1)) % 2 === 0;
    await writeRows(ids, (id) => (changed(id) ? `changed ${id}` : `prompt ${id}`));
    prompts.length = 0;
    for (let kill = 0; kill < 2; kill++) {
      const target = prompts.length + 20 + Math.floor(Math.random() * 60);
      const { child, done } = startCli(args('--resume', '--concurrency', '8'), { cwd: dir.path, env });
      await waitFor(() => prompts.length >= target || child.exitCode !== null);
      child.kill('SIGKILL');
      expect((await done).signal).toBe('SIGKILL'); // killed while it ran, not after it ended
    }
    await run('--resume', '--concurrency', '8');
    expect(await outputIds()).toEqual(ids);
    const replies = await dir.jsonl<{ id: string; reply: string }>('out/output.jsonl');
    for (const { id, reply } of replies) expect(reply).toContain(changed(id) ? `changed ${id}` : `prompt ${id}`);
    expect(prompts.every((prompt) => prompt.startsWith('changed '))).toBe(true);
    // Sent twice only when in flight (or answered, not yet journaled) at a kill: at most the open rows.
    expect(new Set(prompts).size).toBe(200);
    expect(prompts.length - 200).toBeLessThanOrEqual(2 * (8 + 8));
  }, 60_000);
});
