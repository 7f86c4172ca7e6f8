import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SimProcess } from '../../bench/sim-control.js';

/** The bench's simulator as `npm run bench` runs it: built into .bench/dist, in its own process. */
const SCRIPT = fileURLToPath(new URL('../../.bench/dist/bench/sim-process.js', import.meta.url));

let sim: SimProcess | null = null;
afterEach(async () => {
  await sim?.stop();
  sim = null;
});

async function ask(url: string): Promise<number> {
  const response = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench-test' },
    body: JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: 'hi' }] }),
  });
  await response.arrayBuffer();
  return response.status;
}

describe("the bench's simulator process", () => {
  it('starts from its build, plays the provider limits it is given, and reports its counters', async () => {
    sim = await SimProcess.start(SCRIPT, { latencyMs: 0, provider: { rpm: 2, limitHeaders: 'openai' } });
    const statuses = [await ask(sim.url), await ask(sim.url), await ask(sim.url)];
    expect(statuses).toEqual([200, 200, 429]);
    const stats = await sim.stats();
    expect(stats.requests).toBe(3);
    expect(stats.byStatus).toEqual({ 200: 2, 429: 1 });
    await sim.reset();
    expect((await sim.stats()).requests).toBe(0);
  });
});
