import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir } from '../support/per-test.js';
import type { ScriptedServer } from '../support/scripted-server.js';
import type { TempDir } from '../support/temp-dir.js';

let dir: TempDir;
let server: ScriptedServer;
perTestServedDir((fresh) => ({ dir, server } = fresh));

describe('chatbatch run: a wide CSV', () => {
  // 20,000 columns: the header was checked with a search per column, and read three times with
  // --format csv (by hand on a busy machine: 5.6 s before, 1.8 s after). No timing is asserted.
  it('runs a 20,000-column file to an enriched CSV that keeps every column', async () => {
    const width = 20_000;
    const names = ['id', 'prompt', ...Array.from({ length: width - 2 }, (_, i) => `col${i}`)];
    const row = (id: string) => [id, `prompt ${id}`, ...names.slice(2).map((name) => `${name}-${id}`)].join(',');
    await dir.write('wide.csv', `${names.join(',')}\r\n${row('r1')}\r\n${row('r2')}\r\n`);
    const result = await runCli(
      ['run', 'wide.csv', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--format', 'csv', '--quiet'],
      {
        cwd: dir.path,
        env: { CHATBATCH_API_KEY: 'sk-test-wide' },
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(server.received.map((r) => r.json?.messages?.[0]?.content)).toEqual(['prompt r1', 'prompt r2']);
    const [header, ...rows] = parse(await dir.read('out/output.csv')) as string[][];
    expect(header).toEqual([...names, 'reply', 'status', 'code', 'duration_ms', 'trace_id', 'attempts']);
    expect(rows.map((cells) => [cells[0], cells[width - 1], cells[width]])).toEqual([
      ['r1', `col${width - 3}-r1`, 'echo: prompt r1'],
      ['r2', `col${width - 3}-r2`, 'echo: prompt r2'],
    ]);
  });
});
