import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir, type ServedDir } from '../support/per-test.js';
import { sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf } from '../support/temp-dir.js';

// Dollars from token usage: a scripted server reports the same usage for every row (1,000 prompt
// tokens of which 200 cached, 500 completion), so each row's price is known in advance.

let served: ServedDir;
perTestServedDir(
  (fresh) => (served = fresh),
  (_request, response, index) =>
    sendJson(response, 200, {
      id: `chatcmpl-${index}`,
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500, prompt_tokens_details: { cached_tokens: 200 } },
    }),
);

interface Manifest {
  status: string;
  counts: { succeeded: number; pending: number };
  cost: {
    usd: number | null;
    source: string | null;
    by_model: Record<
      string,
      { usd: number | null; priced_as: string | null; input_per_mtok: number | null; cached_input_per_mtok: number | null }
    >;
  };
  sessions: Array<{ cost_usd: number | null }>;
}

const env = { CHATBATCH_API_KEY: 'sk-cost-test-0000000000' };
const run = (model: string, ...extra: string[]) =>
  runCli(['run', 'in.jsonl', '--base-url', served.server.baseUrl, '--model', model, '--out', 'out', '--quiet', ...extra], {
    cwd: served.dir.path,
    env,
  });
const manifest = async (): Promise<Manifest> => JSON.parse(await served.dir.read('out/manifest.json')) as Manifest;
const rows = (count: number) => jsonlOf(Array.from({ length: count }, (_, i) => ({ id: `r${i}`, prompt: `question ${i}` })));

// gpt-4o-mini in the package's table: $0.15 input, $0.075 cached input, $0.60 output per million.
const GPT_4O_MINI_ROW = (800 * 0.15 + 200 * 0.075 + 500 * 0.6) / 1e6;

describe('the cost in dollars', () => {
  it('prices a known model from the price package, cached input at its own price, and says so in the manifest and summary', async () => {
    await served.dir.write('in.jsonl', rows(4));
    const result = await run('gpt-4o-mini');
    expect(result.code, result.stderr).toBe(0);
    const { cost, sessions } = await manifest();
    expect(cost.usd).toBeCloseTo(4 * GPT_4O_MINI_ROW, 10);
    expect(cost.source).toMatch(/^@pydantic\/genai-prices \d+\.\d+\.\d+$/);
    expect(cost.by_model['gpt-4o-mini']).toMatchObject({
      priced_as: 'openai/gpt-4o-mini',
      input_per_mtok: 0.15,
      cached_input_per_mtok: 0.075,
    });
    expect(sessions[0]!.cost_usd).toBeCloseTo(4 * GPT_4O_MINI_ROW, 10);
    expect(result.stderr).toMatch(
      /cost: +\$0\.00174 in this run; \$0\.00174 in this directory \(estimated from token usage and list prices; the provider's console is the bill; prices: @pydantic\/genai-prices [\d.]+, as openai\/gpt-4o-mini\)/,
    );
  });

  it('is null, never 0, for a model the table does not know, and --price MODEL=IN/OUT prices it', async () => {
    await served.dir.write('in.jsonl', rows(2));
    const unknown = await run('our-local-model');
    expect(unknown.code, unknown.stderr).toBe(0);
    expect((await manifest()).cost).toMatchObject({ usd: null, source: null, by_model: { 'our-local-model': { usd: null } } });
    expect(unknown.stderr).toContain('cost:     unknown: the price table has no price for our-local-model');

    const priced = await run('our-local-model', '--force', '--price', 'our-local-model=1/2', '--price', 'other=5/5');
    expect(priced.code, priced.stderr).toBe(0);
    const { cost } = await manifest();
    expect(cost.source).toBe('--price');
    // Cached input is priced as input when --price gives no third figure.
    expect(cost.usd).toBeCloseTo(2 * ((1000 * 1 + 500 * 2) / 1e6), 10);
    const bad = await run('our-local-model', '--force', '--price', 'cheap');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--price "cheap": expected IN/OUT or MODEL=IN/OUT');
  });

  it('--max-cost stops before a row could pass it (exit 4); --resume with a larger budget finishes, counting every session', async () => {
    await served.dir.write('in.jsonl', rows(10));
    // Each row costs $0.002 and is estimated at about that (max_tokens 500, the prompt by the endpoint's ratio once known):
    // three rows fit in $0.007, a fourth could pass it.
    const budget = 0.007;
    const first = await run(
      'our-local-model',
      '--price',
      '1/2',
      '--concurrency',
      '1',
      '--max-cost',
      String(budget),
      '--param',
      'max_tokens=500',
    );
    expect(first.code, first.stderr).toBe(4);
    const after = await manifest();
    expect(after.status).toBe('stopped_at_limit');
    expect(after.counts.succeeded).toBe(3);
    expect(served.server.received).toHaveLength(3);
    expect(first.stderr).toContain('stopped at the cost budget: $0.006 spent of $0.007 in this output directory');
    expect(first.stderr).toContain('--resume --max-cost 0.014');
    const resumed = await run('our-local-model', '--price', '1/2', '--max-cost', '1', '--param', 'max_tokens=500', '--resume');
    expect(resumed.code, resumed.stderr).toBe(0);
    const last = await manifest();
    expect(last.counts.succeeded).toBe(10);
    expect(last.cost.usd).toBeCloseTo(10 * 0.002, 10);
    expect(last.sessions.map((session) => session.cost_usd)).toEqual([0.006, 0.014]);
  });

  it("prices each model's earlier tokens at that model's own price on resume; the cap counts them so (issue 42, item 1)", async () => {
    await served.dir.write('in.jsonl', rows(4));
    // One model priced, one not: the first session's dollars are unknown as a whole, known by model for the cheap one.
    const models = ['--model', 'cheap', '--model', 'dear'];
    // --limit 2, not a token budget: how much of a budget each of two lanes spent first was a
    // race between them (this test failed once in a full suite, its assertion not kept).
    const first = await run('cheap', '--model', 'dear', '--price', 'cheap=1/2', '--limit', '2');
    expect(first.code, first.stderr).toBe(4);
    expect((await manifest()).sessions[0]!.cost_usd).toBeNull();
    const settled = (await served.dir.read('out/output.jsonl'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { model: string });
    const sent = { cheap: settled.filter((r) => r.model === 'cheap').length, dear: settled.filter((r) => r.model === 'dear').length };
    expect(sent).toEqual({ cheap: 2, dear: 2 });
    expect(served.server.received.length).toBe(4);
    // cheap: $0.002 a response (1/2 per million), dear: $0.02 (10/20); the budget leaves no room for one more response.
    const spent = sent.cheap * 0.002 + sent.dear * 0.02;
    const resumed = await runCli(
      ['run', 'in.jsonl', '--base-url', served.server.baseUrl, ...models, '--out', 'out', '--quiet', '--resume'].concat([
        '--price',
        'cheap=1/2',
        '--price',
        'dear=10/20',
        '--max-cost',
        String(spent + 0.001),
        '--param',
        'max_tokens=500',
      ]),
      { cwd: served.dir.path, env },
    );
    expect(resumed.code, resumed.stderr).toBe(4);
    expect(served.server.received.length).toBe(sent.cheap + sent.dear);
    const after = await manifest();
    expect(after.cost.usd).toBeCloseTo(spent, 10);
    expect(after.cost.by_model.dear!.usd).toBeCloseTo(sent.dear * 0.02, 10);
    expect(after.cost.by_model.cheap!.usd).toBeCloseTo(sent.cheap * 0.002, 10);
  });

  it('--max-cost is checked before each retry too: paid answers no row can use stop at the cap (issue 42, item 9)', async () => {
    await served.dir.write('in.jsonl', rows(2));
    // Every answer is paid ($0.002: usage) but holds no choices[0].message: bad_response, retried.
    const paidNothing = await startScriptedServer((_request, response) =>
      sendJson(response, 200, { choices: [], usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 } }),
    );
    try {
      const result = await runCli(
        ['run', 'in.jsonl', '--base-url', paidNothing.baseUrl, '--model', 'm', '--out', 'out', '--quiet'].concat([
          '--price',
          '1/2',
          '--max-cost',
          '0.005',
          '--concurrency',
          '1',
          '--param',
          'max_tokens=500',
        ]),
        { cwd: served.dir.path, env },
      );
      expect(result.code, result.stderr).toBe(4);
      // Without the check a row's five attempts went out: $0.01 against a $0.005 budget.
      expect(paidNothing.received.length).toBeLessThanOrEqual(3);
      expect((await manifest()).cost.usd).toBeLessThanOrEqual(0.006);
    } finally {
      await paidNothing.close();
    }
  });

  it('--max-cost for a model without a price is refused before anything is sent (exit 2)', async () => {
    await served.dir.write('in.jsonl', rows(2));
    const result = await run('our-local-model', '--max-cost', '5');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '--max-cost needs the price of our-local-model, and the price table does not know it; nothing was sent.',
    );
    expect(result.stderr).toContain("--price 'our-local-model=IN/OUT'");
    expect(served.server.received).toHaveLength(0);
  });

  it("with --shard K/N each shard keeps 1/N of --max-cost, and merge sums the shards' dollars", async () => {
    await served.dir.write('in.jsonl', rows(6));
    const first = await runCli(
      [
        'run',
        'in.jsonl',
        '--base-url',
        served.server.baseUrl,
        '--model',
        'm',
        '--out',
        's0',
        '--price',
        '1/2',
        '--shard',
        '0/2',
        '--max-cost',
        '1',
      ],
      { cwd: served.dir.path, env },
    );
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/budget: +\$0\.00\d+ of \$0\.5 spent in this directory \(this shard's 1\/2 of --max-cost \$1\.00\)/);
    const second = await runCli(
      [
        'run',
        'in.jsonl',
        '--base-url',
        served.server.baseUrl,
        '--model',
        'm',
        '--out',
        's1',
        '--price',
        '1/2',
        '--shard',
        '1/2',
        '--max-cost',
        '1',
      ],
      { cwd: served.dir.path, env },
    );
    expect(second.code, second.stderr).toBe(0);
    const merged = await runCli(['merge', 's0', 's1', '--out', 'all'], { cwd: served.dir.path });
    expect(merged.code, merged.stderr).toBe(0);
    const cost = (JSON.parse(await served.dir.read('all/manifest.json')) as Manifest).cost;
    expect(cost.usd).toBeCloseTo(6 * 0.002, 10);
    expect(cost.source).toBe('--price');
    expect(merged.stderr).toContain('cost:   $0.012 (estimated from token usage and list prices');
  });

  it("merge sums the shards' judge tokens and dollars (--judge), apart from the models' as each shard keeps them", async () => {
    await served.dir.write('in.jsonl', rows(4));
    for (const shard of ['0', '1']) {
      const args = ['run', 'in.jsonl', '--base-url', served.server.baseUrl, '--model', 'm', '--price', 'm=1/2', '--expect', 'id'];
      const judged = ['--judge', 'j', '--price', 'j=10/20', '--out', `s${shard}`, '--shard', `${shard}/2`];
      const result = await runCli([...args, ...judged], { cwd: served.dir.path, env });
      expect(result.code, result.stderr).toBe(0);
    }
    const shards = await Promise.all(['s0', 's1'].map(async (dir) => JSON.parse(await served.dir.read(`${dir}/manifest.json`))));
    const merged = await runCli(['merge', 's0', 's1', '--out', 'all'], { cwd: served.dir.path });
    expect(merged.code, merged.stderr).toBe(0);
    const all = JSON.parse(await served.dir.read('all/manifest.json'));
    // Four rows: four model answers and four judge answers, 1,500 tokens each.
    expect(all.judge.usage.total_tokens).toBe(4 * 1500);
    expect(all.judge.cost.usd).toBeCloseTo(shards[0].judge.cost.usd + shards[1].judge.cost.usd, 12);
    expect(all.judge.cost.usd).toBeCloseTo((4 * (800 * 10 + 200 * 10 + 500 * 20)) / 1e6, 12);
    expect(all.cost.usd).toBeCloseTo(shards[0].cost.usd + shards[1].cost.usd, 12);
    expect(all.usage.total_tokens).toBe(4 * 1500);
  });

  it("merge keeps each shard's price when they differ and says so; refuses shards judged against another reference (issue 42, item 7)", async () => {
    await served.dir.write('in.jsonl', rows(6));
    const shard = (index: number, ...extra: string[]) =>
      runCli(
        [
          'run',
          'in.jsonl',
          '--base-url',
          served.server.baseUrl,
          '--model',
          'm',
          '--out',
          `s${index}`,
          '--shard',
          `${index}/2`,
          '--quiet',
          ...extra,
        ],
        {
          cwd: served.dir.path,
          env,
        },
      );
    expect((await shard(0, '--price', '1/2')).code).toBe(0);
    expect((await shard(1, '--price', '3/4')).code).toBe(0);
    const merged = await runCli(['merge', 's0', 's1', '--out', 'all'], { cwd: served.dir.path });
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stderr).toContain('prices: the shards priced these models differently');
    expect(merged.stderr).toContain('m: 0/2 at $1/$2, 1/2 at $3/$4 per million input/output tokens');
    const cost = (
      JSON.parse(await served.dir.read('all/manifest.json')) as { cost: Manifest['cost'] & { by_model: Record<string, unknown> } }
    ).cost;
    expect(cost.by_model.m).toMatchObject({
      input_per_mtok: null,
      shard_prices: [
        { shard: '0/2', input_per_mtok: 1 },
        { shard: '1/2', input_per_mtok: 3 },
      ],
    });
    const shards = await Promise.all(
      ['s0', 's1'].map(async (dir) => (JSON.parse(await served.dir.read(`${dir}/manifest.json`)) as Manifest).cost.usd!),
    );
    expect(cost.usd).toBeCloseTo(shards[0]! + shards[1]!, 10);

    expect((await shard(0, '--expect', 'prompt', '--force')).code).toBe(0);
    expect((await shard(1, '--expect', 'id', '--force')).code).toBe(0);
    const refused = await runCli(['merge', 's0', 's1', '--out', 'judged'], { cwd: served.dir.path });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('s1 judges its replies with expect "id", s0 with "prompt"');
  });

  it('--dry-run and validate price the requests before anything is sent: prompts alone, and with every completion at max_tokens', async () => {
    await served.dir.write('in.jsonl', rows(4));
    const dry = await run('gpt-4o-mini', '--dry-run', '--param', 'max_tokens=1000', '--max-cost', '0.001');
    expect(dry.code, dry.stderr).toBe(0);
    // 4 prompts of about 7 tokens (characters / 4, plus 4 a message) at $0.15/M, and 4 × 1,000 completion tokens at $0.60/M.
    expect(dry.stdout).toMatch(
      /estimated cost: \$0\.00000\d+ to \$0\.0024\d* \(prompts alone; with every completion at max_tokens\); prices: @pydantic\/genai-prices [\d.]+, as openai\/gpt-4o-mini/,
    );
    expect(dry.stdout).toContain('cost budget: $0.001 (--max-cost); the run may stop at the budget (exit 4)');
    expect(served.server.received).toHaveLength(0);

    await served.dir.write(
      'job.json',
      JSON.stringify({ inputs: ['in.jsonl'], model: 'local', price: ['local=2/4'], params: { max_tokens: 100 } }),
    );
    const valid = await runCli(['validate', 'job.json'], { cwd: served.dir.path });
    expect(valid.code, valid.stdout).toBe(0);
    expect(valid.stdout).toMatch(
      /estimated cost: \$0\.0000\d+ to \$0\.0016\d* \(prompts alone; with every completion at max_tokens\); prices: --price/,
    );
    await served.dir.write('priceless.json', JSON.stringify({ inputs: ['in.jsonl'], model: 'local', max_cost: 2 }));
    const invalid = await runCli(['validate', 'priceless.json'], { cwd: served.dir.path });
    expect(invalid.code).toBe(2);
    expect(invalid.stdout).toContain('priceless.json: max_cost: needs the price of local, which the price table does not know');
    const badFlag = await run('m', '--max-cost', 'lots');
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('--max-cost must be a number above 0: current value is "lots"');
    // Decimal only, finite (issue 42, item 2): JavaScript's Number() reads 0x10 as 16.
    for (const [flag, value] of [
      ['--max-cost', '0x10'],
      ['--concurrency', '0x10'],
      ['--max-cost', '1e400'],
    ]) {
      const refused = await run('m', '--price', '1/2', flag!, value!);
      expect(refused.code, `${flag} ${value}`).toBe(2);
      expect(refused.stderr).toContain(`${flag} must be a`);
    }
    const infinite = await run('m', '--price', `1/1/${'9'.repeat(400)}`, '--max-cost', '1');
    expect(infinite.code).toBe(2);
    expect(infinite.stderr).toContain('the cached-input price must be US dollars per million tokens, 0 to 1000000');
    expect(served.server.received).toHaveLength(0);
  });
});
