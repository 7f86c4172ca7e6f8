import { afterEach, describe, expect, it } from 'vitest';
import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../../src/simulator/server.js';
import { waitFor } from '../support/wait-for.js';

let simulator: RunningSimulator | null = null;
afterEach(async () => {
  await simulator?.close();
  simulator = null;
});

/** A simulator playing a provider, on a clock the test moves (`clock.now`). */
async function provider(options: SimulatorOptions): Promise<{ sim: RunningSimulator; clock: { now: number } }> {
  const clock = { now: 1_700_000_000_000 };
  simulator = await startSimulator({ ...options, clock: () => clock.now });
  return { sim: simulator, clock };
}

function ask(sim: RunningSimulator, content = 'hello', extra: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${sim.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim', messages: [{ role: 'user', content }], ...extra }),
  });
}

const limitHeaders = (response: Response) =>
  Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('x-ratelimit-') || name.startsWith('retry-after')));

describe('the simulator playing a provider', () => {
  it('sends OpenAI limit headers on every answer and a 429 of type requests past the RPM, counting what it saw', async () => {
    const { sim, clock } = await provider({ rpm: 2 });
    const first = await ask(sim);
    expect(first.status).toBe(200);
    expect(limitHeaders(first)).toEqual({
      'x-ratelimit-limit-requests': '2',
      'x-ratelimit-remaining-requests': '1',
      'x-ratelimit-reset-requests': '30s',
    });
    expect((await ask(sim)).status).toBe(200);
    const refused = await ask(sim);
    expect(refused.status).toBe(429);
    expect(limitHeaders(refused)).toEqual({
      'x-ratelimit-limit-requests': '2',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '1m0s',
      'retry-after': '30',
      'retry-after-ms': '30000',
    });
    expect(await refused.json()).toEqual({
      error: { message: expect.stringContaining('requests per min (RPM)'), type: 'requests', param: null, code: 'rate_limit_exceeded' },
    });
    clock.now += 30_000;
    expect((await ask(sim)).status).toBe(200);
    expect(sim.stats()).toMatchObject({
      requests: 4,
      byStatus: { 200: 3, 429: 1 },
      limited: { requests: 1, tokens: 0, inFlight: 0 },
      firstRequestAt: 1_700_000_000_000,
      lastRequestAt: 1_700_000_030_000,
    });
  });

  it('counts prompt plus max_tokens against the TPM at admission and answers 429 of type tokens past it', async () => {
    const { sim } = await provider({ tpm: 1000 });
    // "hello" is 2 tokens + 4 for the message: 6, plus 500 allowed for the completion.
    const first = await ask(sim, 'hello', { max_tokens: 500 });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-remaining-tokens')).toBe('494');
    const refused = await ask(sim, 'hello', { max_completion_tokens: 500 });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { type: string } }).error.type).toBe('tokens');
    expect(refused.headers.get('retry-after-ms')).toBe(String(Math.ceil((12 * 60_000) / 1000)));
    expect((await ask(sim, 'hello', { max_tokens: 400 })).status).toBe(200);
    expect(sim.stats()).toMatchObject({ tokensCharged: 912, limited: { tokens: 1 } });
  });

  it('answers bare 429s with no header at all when told --limit-headers none', async () => {
    const { sim } = await provider({ rpm: 1, limitHeaders: 'none' });
    const ok = await ask(sim);
    expect(limitHeaders(ok)).toEqual({});
    const refused = await ask(sim);
    expect(refused.status).toBe(429);
    expect(limitHeaders(refused)).toEqual({});
    expect(refused.headers.get('content-type')).toBe('text/html');
    expect(await refused.text()).toContain('429 Too Many Requests');
  });

  it('answers 429 at once to a request arriving while max-in-flight are being served', async () => {
    const { sim } = await provider({ maxInFlight: 2 });
    const held = [ask(sim, 'one [[sim:hang]]').catch(() => null), ask(sim, 'two [[sim:hang]]').catch(() => null)];
    await waitFor(() => sim.stats().maxAdmittedInFlight === 2);
    const refused = await ask(sim);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(sim.stats()).toMatchObject({ requests: 3, maxAdmittedInFlight: 2, limited: { inFlight: 1 } });
    await sim.close();
    simulator = null;
    await Promise.all(held);
  });

  it('frees an in-flight place when an answer is over', async () => {
    const { sim } = await provider({ maxInFlight: 1 });
    for (let i = 0; i < 3; i++) expect((await ask(sim)).status).toBe(200);
    expect(sim.stats()).toMatchObject({ requests: 3, maxAdmittedInFlight: 1, limited: { inFlight: 0 } });
  });

  it('serves its counters on GET /__stats (not counted) and starts them afresh on DELETE', async () => {
    const { sim } = await provider({ rpm: 1 });
    await ask(sim);
    await ask(sim);
    const stats = await (await fetch(`${sim.url}/__stats`)).json();
    expect(stats).toMatchObject({ requests: 2, byStatus: { 200: 1, 429: 1 }, limited: { requests: 1 } });
    expect((await fetch(`${sim.url}/__stats`, { method: 'DELETE' })).status).toBe(200);
    expect(sim.stats()).toMatchObject({ requests: 0, byStatus: {}, limited: { requests: 0 }, firstRequestAt: null });
  });
});
