import { afterEach, describe, expect, it } from 'vitest';
import { type LogKind, run } from '../../src/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir | null = null;
let simulator: RunningSimulator | null = null;
afterEach(async () => {
  await simulator?.close();
  await dir?.remove();
  simulator = null;
  dir = null;
});

describe("run()'s onNotice", () => {
  it('tells a model stopped by the endpoint (stop) from a note, as the CLI weighs them in its logs', async () => {
    dir = await makeTempDir();
    await dir.write('in.jsonl', jsonlOf(Array.from({ length: 4 }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }))));
    simulator = await startSimulator({ models: ['good'] });
    const notices: Array<[string, LogKind]> = [];
    const report = await run({
      inputs: [dir.file('in.jsonl')],
      model: ['good', 'missing'],
      baseUrl: simulator.url,
      apiKey: 'sk-notice-kinds-0123456789',
      out: dir.file('out'),
      onNotice: (line, kind) => notices.push([line, kind]),
    });
    expect(report.exitCode).toBe(3);
    const stops = notices.filter(([, kind]) => kind === 'stop');
    expect(stops).toHaveLength(1);
    expect(stops[0]![0]).toContain('missing');
    expect(notices.every(([, kind]) => ['note', 'warning', 'stop', 'error'].includes(kind))).toBe(true);
  });
});
