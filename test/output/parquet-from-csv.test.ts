import { describe, expect, it } from 'vitest';
import { run } from '../../src/index.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { hasDuckDb, openDuckDb, sqlString } from '../support/duckdb.js';
import { perTestSimulatedDir } from '../support/per-test.js';
import type { TempDir } from '../support/temp-dir.js';

let dir: TempDir;
let simulator: RunningSimulator;
perTestSimulatedDir((fresh) => ({ dir, simulator } = fresh));

const CSV = 'sku,name,price\r\nA1,"Desk, oak",120\r\nA2,Lamp\r\nA3,Chair,45\r\n';

describe('CSV in, --format parquet out, read back by DuckDB', () => {
  it.skipIf(!hasDuckDb)("keeps the CSV's columns as columns (text, as CSV cells are), not one JSON input column", async () => {
    await dir.write('products.csv', CSV);
    const options = {
      inputs: [dir.file('products.csv')],
      model: 'sim-model',
      baseUrl: simulator.url,
      apiKey: 'sk-parquet-csv-test-123456',
      template: 'Describe {{name}}',
      idField: 'sku',
      keepInput: 'all',
    };
    const report = await run({ ...options, out: dir.file('out'), format: 'parquet' });
    // A2 has a cell too few: an invalid_input record, in errors.parquet, under the same columns.
    expect(report).toMatchObject({ succeeded: 2, failed: 1 });
    const db = await openDuckDb();
    try {
      const output = sqlString(dir.file('out/output.parquet'));
      const types = await db.types(`SELECT * FROM ${output}`);
      expect(Object.entries(types).slice(0, 4)).toEqual([
        ['sku', 'VARCHAR'],
        ['name', 'VARCHAR'],
        ['price', 'VARCHAR'],
        ['id', 'VARCHAR'],
      ]);
      expect(types).not.toHaveProperty('input');
      expect(types).not.toHaveProperty('file');
      expect(await db.rows(`SELECT sku, name, price, id FROM ${output} ORDER BY sku`)).toEqual([
        { sku: 'A1', name: 'Desk, oak', price: '120', id: 'A1' },
        { sku: 'A3', name: 'Chair', price: '45', id: 'A3' },
      ]);
      const errors = sqlString(dir.file('out/errors.parquet'));
      expect(await db.rows(`SELECT sku, name, price, id, code FROM ${errors}`)).toEqual([
        { sku: 'A2', name: 'Lamp', price: null, id: 'A2', code: 'invalid_input' },
      ]);
    } finally {
      db.close();
    }
    // The CSV output has the same input columns.
    await run({ ...options, out: dir.file('csv'), format: 'csv' });
    expect((await dir.read('csv/output.csv')).split(/\r?\n/)[0]).toMatch(/^sku,name,price,reply,/);
  });
});
