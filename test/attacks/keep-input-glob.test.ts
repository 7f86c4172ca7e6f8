import { describe, expect, it } from 'vitest';
import { run } from '../../src/index.js';
import { resolveRunConfig } from '../../src/job/config.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { perTestSimulatedDir } from '../support/per-test.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
let simulator: RunningSimulator;
perTestSimulatedDir((fresh) => ({ dir, simulator } = fresh));

describe('--keep-input followed by a glob the shell expanded', () => {
  it('is refused before anything is sent (exit 2), naming the file and what to write instead', async () => {
    const a = await dir.write('a.jsonl', jsonlOf([{ id: 'a1', prompt: 'x' }]));
    const b = await dir.write('b.jsonl', jsonlOf([{ id: 'b1', prompt: 'y' }]));
    // `--keep-input data/*.jsonl` reaches the program as `--keep-input a.jsonl b.jsonl`.
    const options = { inputs: [b], keepInput: a, model: 'm', baseUrl: simulator.url, apiKey: 'sk-keep-glob-0000000', out: dir.file('out') };
    await expect(run(options)).rejects.toThrow(/--keep-input .*a\.jsonl is an input file, not a field name.*--keep-input=all/);
    expect(simulator.stats().requests).toBe(0);
  });

  it('still takes field names, dotted ones included', () => {
    const flags = { inputs: ['in.jsonl'], model: 'm', baseUrl: 'http://127.0.0.1:9/v1', out: 'out', keepInput: 'question,price.usd' };
    const config = resolveRunConfig(flags, null, { env: { CHATBATCH_API_KEY: 'k' }, cwd: dir.path });
    expect(config.keepInput).toBe('question,price.usd');
  });
});
