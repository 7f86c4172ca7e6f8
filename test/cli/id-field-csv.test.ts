import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';

describe('--id-field with --format csv', () => {
  let dir: TempDir;
  afterEach(async () => dir?.remove());

  it('names each output.csv row by the --id-field value, as the records do, not by the row’s own id field', async () => {
    dir = await makeTempDir();
    await dir.write('in.jsonl', '{"key":"k1","id":"x1","prompt":"one"}\n{"key":"k2","id":"x2","prompt":"two"}\n');
    const result = await runCli(
      ['run', 'in.jsonl', '--simulate', '--model', 'sim', '--out', 'out', '--id-field', 'key', '--format', 'csv', '--quiet'],
      {
        cwd: dir.path,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    const records = await dir.jsonl<{ id: string }>('out/output.jsonl');
    const rows = parse(await dir.read('out/output.csv'), { columns: true }) as Array<{ id: string }>;
    expect(records.map((r) => r.id)).toEqual(['k1', 'k2']);
    expect(rows.map((r) => r.id)).toEqual(['k1', 'k2']);
  });
});
