import { afterEach, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli-in-process.js';
import { jsonlOf, makeTempDir } from '../support/temp-dir.js';

let simulator: RunningSimulator | null = null;
afterEach(async () => {
  await simulator?.close();
  simulator = null;
});

type Completion = { choices: Array<{ message: { content: string } }> };

async function contents(sim: RunningSimulator, body: unknown, clientRequestId: string): Promise<string[]> {
  const response = await fetch(`${sim.url}/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer k', 'content-type': 'application/json', 'x-client-request-id': clientRequestId },
    body: JSON.stringify(body),
  });
  return ((await response.json()) as Completion).choices.map((choice) => choice.message.content);
}

const messages = [{ role: 'user', content: 'Is this review positive? "Great value"' }];
/** The X-Client-Request-Id of sample `sample` of one row, attempt `attempt`, as chatbatch writes them. */
const sampleId = (sample: number, attempt = 1) => `cb-row${sample}-${attempt}`;

describe('simulator samples', () => {
  it('at temperature 0 every sample of a row gets the same reply', async () => {
    simulator = await startSimulator();
    const replies = new Set<string>();
    for (let sample = 0; sample < 8; sample++)
      replies.add((await contents(simulator, { model: 'sim', messages, temperature: 0 }, sampleId(sample)))[0]!);
    expect(replies.size).toBe(1);
  });

  it('above temperature 0 samples differ, each one the same on a retry and in another simulator', async () => {
    simulator = await startSimulator();
    const body = { model: 'sim', messages, temperature: 1.2 };
    const first: string[] = [];
    for (let sample = 0; sample < 12; sample++) first.push((await contents(simulator, body, sampleId(sample)))[0]!);
    expect(new Set(first).size).toBeGreaterThan(1);
    // A retry of sample 3 (attempt 2) answers as its first attempt did.
    expect((await contents(simulator, body, sampleId(3, 2)))[0]).toBe(first[3]);
    await simulator.close();
    simulator = await startSimulator();
    const again: string[] = [];
    for (let sample = 0; sample < 12; sample++) again.push((await contents(simulator, body, sampleId(sample)))[0]!);
    expect(again).toEqual(first);
  });

  it('answers JSON in every choice of n when response_format asks for JSON', async () => {
    simulator = await startSimulator();
    const schema = { type: 'object', properties: { label: { enum: ['yes', 'no'] }, confidence: { type: 'number' } }, required: ['label'] };
    const choices = await contents(
      simulator,
      { model: 'sim', messages, n: 4, response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } } },
      sampleId(0),
    );
    expect(choices).toHaveLength(4);
    for (const content of choices) expect(['yes', 'no']).toContain((JSON.parse(content) as { label: string }).label);
  });
});

describe('chatbatch run --simulate --repeat with temperature', () => {
  it("gives a row's samples different replies above temperature 0, and the report measures their agreement", async () => {
    const dir = await makeTempDir();
    try {
      await dir.write('q.jsonl', jsonlOf(Array.from({ length: 10 }, (_, i) => ({ id: `q${i}`, prompt: `question ${i}` }))));
      await dir.write('job.json', JSON.stringify({ inputs: ['q.jsonl'], model: 'sim', params: { temperature: 1.5 }, repeat: 5 }));
      const run = await runCli(['run', '--job', 'job.json', '--simulate', '--out', 'out', '--quiet'], { cwd: dir.path });
      expect(run.code, run.stderr).toBe(0);
      const records = (await dir.jsonl('out/output.jsonl')) as Array<{ id: string; reply: string }>;
      const perRow = new Map<string, Set<string>>();
      for (const record of records) perRow.set(record.id, (perRow.get(record.id) ?? new Set()).add(record.reply));
      expect([...perRow.values()].some((replies) => replies.size > 1)).toBe(true);
      const report = await runCli(['report', 'out'], { cwd: dir.path });
      expect(report.stdout).toMatch(/sample agreement .*: mean \d+\.\d% over 10 rows/);
      expect(report.stdout).toContain('least consistent rows:');
    } finally {
      await dir.remove();
    }
  });
});
