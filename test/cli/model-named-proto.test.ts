import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir, type ServedDir } from '../support/per-test.js';
import { sendJson } from '../support/scripted-server.js';
import { jsonlOf } from '../support/temp-dir.js';

// Model names are the user's, error codes the server's: `__proto__`, `constructor` and
// `hasOwnProperty` are names like any other. Figures kept by name in a plain object lost
// `__proto__` (assigning it set the object's prototype) and counted `constructor` on top of
// Object's own, so a model's dollars vanished from the manifest, merge and report, and a code
// from the report's failures.

let served: ServedDir;
/** The error code of each answer (by its index), when a test sets them; else a success. */
let codes: string[] | null = null;
// Every answer reports 100 prompt and 10 completion tokens: at --price 1/2, $0.00012 a response.
perTestServedDir(
  (fresh) => {
    served = fresh;
    codes = null;
  },
  (_request, response, index) =>
    codes
      ? sendJson(response, 400, { error: { code: codes[index] ?? 'other', message: 'refused' } })
      : sendJson(response, 200, {
          id: `c-${index}`,
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
        }),
);

const MODELS = ['__proto__', 'constructor', 'hasOwnProperty'];
const ROW_USD = 0.00012;

interface ModelFigures {
  usd: number | null;
}
/** Parsed by JSON.parse, whose `__proto__` keys are own entries: what a reader of the file sees. */
const manifestOf = async (dir: string) =>
  JSON.parse(await served.dir.read(`${dir}/manifest.json`)) as {
    cost: { usd: number; by_model: Record<string, ModelFigures> };
    sessions: Array<{ cost_by_model: Record<string, ModelFigures & { prompt_tokens: number }> }>;
  };
const own = (object: object, key: string) => (Object.hasOwn(object, key) ? (object as Record<string, unknown>)[key] : undefined);

describe('a model named __proto__, constructor or hasOwnProperty', () => {
  it('keeps its dollars and tokens through run, merge and report', async () => {
    await served.dir.write('in.jsonl', jsonlOf(Array.from({ length: 4 }, (_, i) => ({ id: `r${i}`, prompt: `q${i}` }))));
    const env = { CHATBATCH_API_KEY: 'sk-proto-test-0000000000' };
    const models = MODELS.flatMap((model) => ['--model', model]);
    for (const shard of [0, 1]) {
      const args = ['run', 'in.jsonl', '--base-url', served.server.baseUrl, ...models, '--price', '1/2'];
      const result = await runCli([...args, '--shard', `${shard}/2`, '--out', `out${shard}`, '--quiet'], { cwd: served.dir.path, env });
      expect(result.code, result.stderr).toBe(0);
    }
    const shards = [await manifestOf('out0'), await manifestOf('out1')];
    for (const manifest of shards) {
      expect(Object.keys(manifest.cost.by_model)).toEqual(MODELS);
      expect(Object.keys(manifest.sessions[0]!.cost_by_model)).toEqual(MODELS);
    }
    const rowsOf = (manifest: (typeof shards)[0]) =>
      (own(manifest.sessions[0]!.cost_by_model, 'constructor') as { prompt_tokens: number }).prompt_tokens / 100;
    expect(rowsOf(shards[0]!) + rowsOf(shards[1]!)).toBe(4);

    const merged = await runCli(['merge', 'out0', 'out1', '--out', 'all'], { cwd: served.dir.path });
    expect(merged.code, merged.stderr).toBe(0);
    const all = await manifestOf('all');
    expect(Object.keys(all.cost.by_model)).toEqual(MODELS);
    for (const model of MODELS) expect((own(all.cost.by_model, model) as ModelFigures).usd).toBeCloseTo(4 * ROW_USD, 10);
    expect(all.cost.usd).toBeCloseTo(12 * ROW_USD, 10);

    const report = await runCli(['report', 'all'], { cwd: served.dir.path });
    expect(report.code, report.stderr).toBe(0);
    for (const model of MODELS) expect(report.stdout).toMatch(new RegExp(`\\n  ${model} .*\\$0\\.00048\\n`));
    const json = JSON.parse((await runCli(['report', 'all', '--json'], { cwd: served.dir.path })).stdout) as {
      models: Array<{ model: string; usd: number | null; tokens: { prompt: number } }>;
    };
    expect(json.models.map((line) => [line.model, line.usd, line.tokens.prompt])).toEqual(MODELS.map((model) => [model, 0.00048, 400]));
  });

  it("is counted in the report's failures as an error code", async () => {
    const failing = ['__proto__', 'constructor', 'constructor'];
    codes = failing;
    await served.dir.write('in.jsonl', jsonlOf(failing.map((_, i) => ({ id: `r${i}`, prompt: `q${i}` }))));
    const args = ['run', 'in.jsonl', '--base-url', served.server.baseUrl, '--model', 'm', '--concurrency', '1', '--out', 'out', '--quiet'];
    expect((await runCli(args, { cwd: served.dir.path, env: { CHATBATCH_API_KEY: 'sk-proto-test-0000000000' } })).code).toBe(1);
    const json = JSON.parse((await runCli(['report', 'out', '--json'], { cwd: served.dir.path })).stdout) as {
      failures: { by_code: Record<string, number> };
    };
    expect(Object.entries(json.failures.by_code)).toEqual([
      ['__proto__', 1],
      ['constructor', 2],
    ]);
  });

  it("is counted by the simulator's limits as its own model, and nothing else learns its counts", async () => {
    const simulator = await startSimulator({ port: 0, rpm: 100 });
    try {
      for (const model of MODELS) {
        const response = await fetch(`${simulator.url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
        });
        expect(response.status).toBe(200);
      }
      const { byModel } = simulator.stats();
      expect(Object.keys(byModel)).toEqual(MODELS);
      expect((own(byModel, '__proto__') as { admitted: number }).admitted).toBe(1);
      expect(({} as { admitted?: number }).admitted).toBeUndefined();
    } finally {
      await simulator.close();
    }
  });
});
