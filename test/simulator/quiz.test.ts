import { afterEach, describe, expect, it } from 'vitest';
import { quizReply, rightShare } from '../../src/simulator/quiz.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';

let simulator: RunningSimulator | null = null;
afterEach(async () => {
  await simulator?.close();
  simulator = null;
});

async function reply(model: string, content: string, extra: Record<string, unknown> = {}): Promise<string> {
  simulator ??= await startSimulator();
  const response = await fetch(`${simulator.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content }], ...extra }),
  });
  const json = (await response.json()) as { choices: Array<{ message: { content: string } }> };
  return json.choices[0]!.message.content;
}

const question = (n: number, answer: string | number) => [{ role: 'user', content: `Question ${n}? [[sim:answer=${answer}]]` }];

describe('the simulator plays models apart on a quiz ([[sim:answer=...]])', () => {
  it('makes a model named -rightNN right on about NN% of rows, another by its name, each on rows of its own', () => {
    const rightRows = (model: string) =>
      Array.from({ length: 2000 }, (_, n) => quizReply(String(n), question(n, n), model, 0) === `The answer is ${n}.`);
    const strong = rightRows('quiz-strong-right85');
    const weak = rightRows('quiz-weak-right70');
    const share = (rows: boolean[]) => rows.filter(Boolean).length / rows.length;
    expect(share(strong)).toBeGreaterThan(0.82);
    expect(share(strong)).toBeLessThan(0.88);
    expect(share(weak)).toBeGreaterThan(0.67);
    expect(share(weak)).toBeLessThan(0.73);
    // Rows of its own: about 0.85 × 0.30 of the rows only the strong model gets right.
    const onlyStrong = strong.filter((right, n) => right && !weak[n]).length / 2000;
    expect(onlyStrong).toBeGreaterThan(0.22);
    expect(onlyStrong).toBeLessThan(0.29);
    expect(rightShare('quiz-right100')).toBe(1);
    expect(rightShare('quiz-right0')).toBe(0);
    const named = rightShare('gpt-4o-mini');
    expect(named).toBeGreaterThanOrEqual(0.5);
    expect(named).toBeLessThanOrEqual(0.9);
    expect(rightShare('gpt-4o-mini')).toBe(named);
  });

  it('answers as models do: ANSWER: letter, the answer is a number, the answer is a text; wrong ones differ', async () => {
    expect(await reply('m-right100', 'Pick one. [[sim:answer=B]]')).toBe('ANSWER: B');
    expect(await reply('m-right100', 'How many? [[sim:answer=1,000]]')).toBe('The answer is 1,000.');
    expect(await reply('m-right100', 'Capital of France? [[sim:answer=Paris]]')).toBe('The answer is Paris.');
    expect(await reply('m-right0', 'Pick one. [[sim:answer=B]]')).toMatch(/^ANSWER: [ACD]$/);
    expect(await reply('m-right0', 'How many? [[sim:answer=41]]')).toMatch(/^The answer is (4[2-9]|50)\.$/);
    expect(await reply('m-right0', 'Capital of France? [[sim:answer=Paris]]')).toBe('I am not sure.');
  });

  it("above temperature 0 a row's samples may differ; without the directive replies are as before", async () => {
    const samples = new Set<string>();
    // Each request is a sample of its own without chatbatch's X-Client-Request-Id.
    for (let sample = 0; sample < 12; sample++) samples.add(await reply('m-right50', 'How many? [[sim:answer=41]]', { temperature: 1.5 }));
    expect(samples.size).toBeGreaterThan(1);
    expect(await reply('m-right100', 'plain question')).toMatch(/^Simulated reply to "plain question"/);
  });
});
