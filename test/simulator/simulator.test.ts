import { afterEach, describe, expect, it } from 'vitest';
import { type RunningSimulator, type SimulatorOptions, simulatedReply, startSimulator } from '../../src/simulator/server.js';
import { waitFor } from '../support/wait-for.js';

let simulator: RunningSimulator | null = null;
afterEach(async () => {
  await simulator?.close();
  simulator = null;
});

async function start(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  simulator = await startSimulator(options);
  return simulator;
}

function post(sim: RunningSimulator, body: unknown, path = '/chat/completions', key = 'k'): Promise<Response> {
  return fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const ask = (content: string) => ({ model: 'sim', messages: [{ role: 'user', content }] });

describe('simulator', () => {
  it('answers OpenAI-shaped completions with deterministic replies, usage and x-request-id, also under /v1', async () => {
    const sim = await start();
    for (const path of ['/chat/completions', '/v1/chat/completions']) {
      const response = await post(sim, ask('hello'), path);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-request-id')).toMatch(/^req_sim_\d+$/);
      const body = (await response.json()) as {
        choices: Array<{ message: { content: string } }>;
        usage: { total_tokens: number };
        object: string;
      };
      expect(body.object).toBe('chat.completion');
      expect(body.choices[0]!.message.content).toBe(simulatedReply([{ role: 'user', content: 'hello' }]));
      expect(body.usage.total_tokens).toBeGreaterThan(0);
    }
    expect(simulatedReply([{ role: 'user', content: 'a' }])).not.toBe(simulatedReply([{ role: 'user', content: 'b' }]));
  });

  it('checks the key and the model when told to', async () => {
    const sim = await start({ apiKey: 'right', models: ['sim'] });
    expect((await post(sim, ask('x'), '/chat/completions', 'wrong')).status).toBe(401);
    expect((await post(sim, { ...ask('x'), model: 'other' }, '/chat/completions', 'right')).status).toBe(404);
    expect((await post(sim, ask('x'), '/chat/completions', 'right')).status).toBe(200);
  });

  it('refuses unsupported parameters and malformed bodies', async () => {
    const sim = await start();
    expect((await post(sim, { ...ask('x'), stream: true })).status).toBe(400);
    expect((await post(sim, { model: 'm' })).status).toBe(400);
  });

  it.each([
    ['[[sim:503]]', 503, 'server_error'],
    ['[[sim:400]]', 400, 'http_400_sim'],
    ['[[sim:429]]', 429, 'rate_limit_exceeded'],
    ['[[sim:quota]]', 429, 'insufficient_quota'],
    ['[[sim:okerror]]', 200, 'upstream_error'],
  ])('directive %s answers %i %s', async (directive, status, code) => {
    const sim = await start();
    const response = await post(sim, ask(`x ${directive}`));
    expect(response.status).toBe(status);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
  });

  it('applies a counted directive to the first N identical requests only', async () => {
    const sim = await start();
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(sim, ask('flaky [[sim:500x2]]'))).status);
    expect(statuses).toEqual([500, 500, 200, 200]);
  });

  it('announces retry-after on 429s, as an HTTP date when asked', async () => {
    const sim = await start({ retryAfterMs: 1500 });
    const plain = await post(sim, ask('[[sim:429]]'));
    expect(plain.headers.get('retry-after')).toBe('2');
    expect(plain.headers.get('retry-after-ms')).toBe('1500');
    const dated = await post(sim, ask('[[sim:retry-after-date]]'));
    expect(Number.isNaN(Date.parse(dated.headers.get('retry-after') ?? ''))).toBe(false);
    expect(dated.headers.get('retry-after-ms')).toBeNull();
    expect((await post(sim, ask('[[sim:retry-after-date]]'))).status).toBe(200);
  });

  it('serves other trace headers, none, and x-should-retry', async () => {
    const sim = await start();
    const apim = await post(sim, ask('[[sim:apim]]'));
    expect(apim.headers.get('apim-request-id')).toMatch(/^req_sim_/);
    expect(apim.headers.get('x-request-id')).toBeNull();
    expect((await post(sim, ask('[[sim:no-trace]]'))).headers.get('x-request-id')).toBeNull();
    expect((await post(sim, ask('[[sim:should-retry-false]]'))).headers.get('x-should-retry')).toBe('false');
  });

  it('sends an HTML 502 page', async () => {
    const sim = await start();
    const response = await post(sim, ask('[[sim:html502]]'));
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toBe('text/html');
    expect(await response.text()).toContain('<title>502 Bad Gateway</title>');
  });

  it('resets the connection', async () => {
    const sim = await start();
    await expect(post(sim, ask('[[sim:reset]]'))).rejects.toThrow();
  });

  it('hangs until closed, and close() returns promptly', async () => {
    const sim = await start();
    const hung = post(sim, ask('[[sim:hang]]')).catch(() => 'closed');
    await waitFor(() => sim.stats().inFlight === 1);
    expect(sim.stats().inFlight).toBe(1);
    const started = Date.now();
    await sim.close();
    simulator = null;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await hung).toBe('closed');
  });

  it('draws random faults at the configured rates, reproducibly by seed', async () => {
    const sim = await start({ faults: { serverError: 1 } });
    expect((await post(sim, ask('x'))).status).toBe(500);
    await sim.close();
    const statuses = async (seed: number) => {
      const s = await startSimulator({ seed, faults: { serverError: 0.5 } });
      const seen = [];
      for (let i = 0; i < 20; i++) seen.push((await post(s, ask(`r${i}`))).status);
      await s.close();
      return seen;
    };
    const first = await statuses(7);
    expect(await statuses(7)).toEqual(first);
    expect(first.filter((s) => s === 500).length).toBeGreaterThan(3);
    expect(first.filter((s) => s === 200).length).toBeGreaterThan(3);
    simulator = null;
  });

  it('counts requests in flight and the most seen at once', async () => {
    const sim = await start({ latencyMs: 50 });
    await Promise.all(Array.from({ length: 5 }, (_, i) => post(sim, ask(`c${i}`)).then((r) => r.text())));
    expect(sim.stats()).toMatchObject({ requests: 5, inFlight: 0, maxInFlight: 5 });
    sim.resetStats();
    expect(sim.stats().requests).toBe(0);
  });
});
