import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir, type ServedDir } from '../support/per-test.js';
import { type ReceivedRequest, sendJson } from '../support/scripted-server.js';
import { jsonlOf } from '../support/temp-dir.js';

// The report's per-model "tokens in/out" and "cost" say the same thing: every paid attempt. A row
// can pay more than its record shows: a reply failing --reply-format json is sent again, a paid
// content_filter failure is sent again by --retry-failed. The tokens were the records' (each
// row's last answer) while the dollars were the manifest's (every answer): 760 prompt tokens
// beside $0.001822, which is 1,284 at the price.

let served: ServedDir;
/** What the server was paid, by model. */
let paid = new Map<string, { prompt: number; completion: number }>();
const attempts = new Map<string, number>();

/** Row r%3 0: a JSON reply; 1: text that is not JSON, then JSON; 2: content_filter (a paid failure). */
function answer(request: ReceivedRequest, response: Parameters<typeof sendJson>[0]): void {
  const model = String(request.json?.model);
  const row = Number(String(request.json?.messages?.at(-1)?.content).slice(1));
  const attempt = (attempts.get(`${model}/${row}`) ?? 0) + 1;
  attempts.set(`${model}/${row}`, attempt);
  const usage = { prompt_tokens: 100 + 10 * row + attempt, completion_tokens: 20 + row + 3 * attempt };
  const sum = paid.get(model) ?? { prompt: 0, completion: 0 };
  paid.set(model, { prompt: sum.prompt + usage.prompt_tokens, completion: sum.completion + usage.completion_tokens });
  const content = row % 3 === 2 ? null : row % 3 === 1 && attempt % 2 === 1 ? 'not json' : `{"row":${row}}`;
  sendJson(response, 200, {
    id: `c-${row}-${attempt}`,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: row % 3 === 2 ? 'content_filter' : 'stop' }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  });
}

perTestServedDir((fresh) => {
  served = fresh;
  paid = new Map();
  attempts.clear();
}, answer);

interface ReportLine {
  model: string;
  tokens: { prompt: number; completion: number };
  tokens_from: string;
  usd: number;
}
const env = { CHATBATCH_API_KEY: 'sk-model-tokens-0000000000' };
const cli = (...args: string[]) => runCli(args, { cwd: served.dir.path, env });
const jsonLines = async (dir: string): Promise<ReportLine[]> =>
  (JSON.parse((await cli('report', dir, '--json')).stdout) as { models: ReportLine[] }).models;
/** At --price 1/2: the dollars of these tokens. */
const usdOf = (tokens: { prompt: number; completion: number }) => (tokens.prompt + 2 * tokens.completion) / 1e6;

describe("the report's tokens by model", () => {
  it('count every paid attempt, as the dollars beside them do: in a shard, resumed with --retry-failed, and merged', async () => {
    await served.dir.write('in.jsonl', jsonlOf(Array.from({ length: 12 }, (_, i) => ({ id: `r${i}`, prompt: `r${i}` }))));
    const run = ['run', 'in.jsonl', '--base-url', served.server.baseUrl, '--model', 'a', '--model', 'b', '--price', '1/2'];
    run.push('--reply-format', 'json', '--quiet');
    for (const shard of [0, 1]) {
      const out = ['--shard', `${shard}/2`, '--out', `out${shard}`];
      expect((await cli(...run, ...out)).code).toBe(1);
      expect((await cli(...run, ...out, '--resume', '--retry-failed')).code).toBe(1);
    }
    const shards = [await jsonLines('out0'), await jsonLines('out1')];
    for (const lines of shards) {
      for (const line of lines) {
        expect(line.usd).toBeCloseTo(usdOf(line.tokens), 10);
        expect(line.tokens_from).toBe('manifest');
      }
    }
    expect((await cli('merge', 'out0', 'out1', '--out', 'all')).code).toBe(1);
    const merged = await jsonLines('all');
    expect(merged.map((line) => [line.model, line.tokens])).toEqual([
      ['a', paid.get('a')],
      ['b', paid.get('b')],
    ]);
    for (const [index, line] of merged.entries()) {
      expect(line.tokens.prompt).toBe(shards[0]![index]!.tokens.prompt + shards[1]![index]!.tokens.prompt);
      expect(line.usd).toBeCloseTo(usdOf(line.tokens), 10);
    }
    const text = (await cli('report', 'all')).stdout;
    const a = paid.get('a')!;
    expect(text).toContain(`${a.prompt.toLocaleString('en-US')}/${a.completion}`);
    expect(text).toContain('  tokens in/out and cost: every paid attempt of every session, as the manifest counts them');

    // A manifest that keeps no tokens by model (an older chatbatch's): the records' figures, and the table says so.
    const manifest = JSON.parse(await served.dir.read('out0/manifest.json')) as { sessions: Array<Record<string, unknown>> };
    for (const session of manifest.sessions) delete session.cost_by_model;
    await served.dir.write('out0/manifest.json', JSON.stringify(manifest));
    const older = await jsonLines('out0');
    expect(older.map((line) => line.tokens_from)).toEqual(['records', 'records']);
    expect(older[0]!.tokens.prompt).toBeLessThan(shards[0]![0]!.tokens.prompt);
    expect((await cli('report', 'out0')).stdout).toContain(
      "  tokens in/out: the records' usage, each row's last answer only (the manifest, of an older chatbatch, keeps no tokens by model); cost: every paid attempt",
    );
  });
});
