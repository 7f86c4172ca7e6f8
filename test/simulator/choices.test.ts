import { afterEach, describe, expect, it } from 'vitest';
import { type RunningSimulator, simulatedReply, startSimulator } from '../../src/simulator/server.js';

let simulator: RunningSimulator | null = null;
afterEach(async () => {
  await simulator?.close();
  simulator = null;
});

function post(sim: RunningSimulator, body: unknown): Promise<Response> {
  return fetch(`${sim.url}/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const messages = [{ role: 'user', content: 'hello' }];

describe('simulator n', () => {
  it('answers n choices, deterministic and distinct, the first one the reply of n = 1', async () => {
    simulator = await startSimulator();
    const contents = async (): Promise<string[]> => {
      const body = (await (await post(simulator!, { model: 'sim', messages, n: 3 })).json()) as {
        choices: Array<{ index: number; message: { content: string } }>;
      };
      expect(body.choices.map((c) => c.index)).toEqual([0, 1, 2]);
      return body.choices.map((c) => c.message.content);
    };
    const first = await contents();
    expect(first[0]).toBe(simulatedReply(messages));
    expect(new Set(first).size).toBe(3);
    expect(await contents()).toEqual(first);
  });

  it('refuses an n that is not an integer from 1 to 128 with a 400 naming n', async () => {
    simulator = await startSimulator();
    for (const n of [0, 1.5, '2', 129]) {
      const response = await post(simulator, { model: 'sim', messages, n });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { param: string } }).error.param).toBe('n');
    }
  });
});
