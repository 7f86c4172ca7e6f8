import { describe, expect, it } from 'vitest';
import { run } from '../../src/index.js';
import { mergeShards } from '../../src/output/merge.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { hasDuckDb, openDuckDb, sqlString } from '../support/duckdb.js';
import { perTestSimulatedDir } from '../support/per-test.js';
import type { TempDir } from '../support/temp-dir.js';

const KEY = 'sk-parquet-test-123456';
/** A reply schema with an integer, an enum, a number and a nested object: each becomes a typed column. */
const SCHEMA = {
  type: 'object',
  properties: {
    label: { enum: ['positive', 'negative', 'neutral'] },
    stars: { type: 'integer', minimum: 1, maximum: 5 },
    score: { type: 'number' },
    detail: { type: 'object', properties: { reason: { type: 'string' } }, required: ['reason'], additionalProperties: false },
  },
  required: ['label', 'stars', 'score', 'detail'],
  additionalProperties: false,
};
/** What DuckDB writes, as pyarrow would: two row groups (DuckDB's smallest is 2,048 rows), snappy, ints, nulls, a list, a struct, a timestamp, a date. */
const ROWS = 2100;
const table = (
  rows: number,
) => `SELECT i::BIGINT AS id, (i * 7)::INTEGER AS n, CASE WHEN i % 500 = 0 THEN NULL ELSE 'item ' || i END AS name,
  [i, i + 1] AS tags, {'a': i} AS info, i / 4 AS weight, i % 2 = 0 AS flag, TIMESTAMP '2026-01-02 03:04:05' AS ts,
  DATE '2026-01-01' + i::INTEGER AS day, CASE WHEN i = 1 THEN 9007199254740993 ELSE i END::BIGINT AS big FROM range(1, ${rows + 1}) t(i)`;

let dir: TempDir;
let simulator: RunningSimulator;
perTestSimulatedDir((fresh) => ({ dir, simulator } = fresh));

async function writeInput(db: Awaited<ReturnType<typeof openDuckDb>>, rows = ROWS): Promise<string> {
  const file = dir.file('table.parquet');
  await db.run(`COPY (${table(rows)}) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 2048)`);
  await dir.write('schema.json', JSON.stringify(SCHEMA));
  return file;
}

const runOptions = (input: string, out: string) => ({
  inputs: [input],
  model: 'sim-model',
  baseUrl: simulator.url,
  apiKey: KEY,
  out,
  concurrency: 64,
  template: 'Rate {{name}} ({{tags}})',
  format: 'parquet' as const,
  replySchema: dir.file('schema.json'),
  params: { response_format: { type: 'json_schema', json_schema: { name: 'rating', schema: SCHEMA } } },
});

describe('--format parquet, from a Parquet table DuckDB wrote, read back by DuckDB', () => {
  it.skipIf(!hasDuckDb)(
    'runs end to end: the input columns keep their types, ours are typed, the reply schema is a typed struct',
    async () => {
      const db = await openDuckDb();
      try {
        const input = await writeInput(db);
        const report = await run(runOptions(input, dir.file('out')));
        expect(report).toMatchObject({ status: 'finished_with_failures', rows: ROWS, succeeded: ROWS - 4, failed: 4 });
        const output = sqlString(dir.file('out/output.parquet'));
        const errors = sqlString(dir.file('out/errors.parquet'));
        expect(await db.types(`SELECT * FROM ${output}`)).toEqual({
          id: 'BIGINT',
          n: 'BIGINT',
          name: 'VARCHAR',
          tags: 'BIGINT[]',
          info: 'STRUCT("a" BIGINT)',
          weight: 'DOUBLE',
          flag: 'BOOLEAN',
          ts: 'TIMESTAMP',
          day: 'DATE',
          big: 'BIGINT',
          chatbatch_id: 'VARCHAR',
          model: 'VARCHAR',
          reply: 'VARCHAR',
          status: 'BIGINT',
          code: 'VARCHAR',
          finish_reason: 'VARCHAR',
          started_at: 'TIMESTAMP',
          duration_ms: 'BIGINT',
          attempts: 'BIGINT',
          trace_id: 'VARCHAR',
          usage: 'STRUCT("prompt_tokens" BIGINT, "completion_tokens" BIGINT, "total_tokens" BIGINT)',
          data: 'STRUCT("label" VARCHAR, "stars" BIGINT, "score" DOUBLE, "detail" VARCHAR)',
        });
        // The input's lists and structs keep their shape; a reply's object of no fixed shape is JSON text,
        // marked as Parquet's JSON type (DuckDB shows it as VARCHAR).
        const json = await db.rows(`SELECT name FROM parquet_schema(${output}) WHERE converted_type = 'JSON' ORDER BY name`);
        expect(json.map((row) => row.name)).toEqual(['detail']);
        const [first] =
          await db.rows(`SELECT id, big, name, tags, chatbatch_id, status, code, ts, day, data.label AS label, data.stars AS stars,
        usage.total_tokens > 0 AS counted FROM ${output} ORDER BY id LIMIT 1`);
        expect(first).toMatchObject({
          id: '1',
          big: '9007199254740993',
          name: 'item 1',
          tags: ['1', '2'],
          chatbatch_id: '1',
          status: '200',
          code: null,
        });
        expect(first).toMatchObject({ ts: '2026-01-02 03:04:05', day: '2026-01-02', counted: true });
        expect(['positive', 'negative', 'neutral']).toContain(first!.label);
        expect(Number(first!.stars)).toBeGreaterThanOrEqual(1);
        // Every row once, in input order, in one file or the other.
        const ids = await db.rows(`SELECT id FROM (SELECT id FROM ${output} UNION ALL SELECT id FROM ${errors}) ORDER BY id`);
        expect(ids.map((row) => Number(row.id))).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
        const failed = await db.rows(`SELECT id, name, code, category, message FROM ${errors} ORDER BY id`);
        expect(failed.map((row) => [row.id, row.name, row.code, row.category])).toEqual([
          ['500', null, 'invalid_input', 'invalid_input'],
          ['1000', null, 'invalid_input', 'invalid_input'],
          ['1500', null, 'invalid_input', 'invalid_input'],
          ['2000', null, 'invalid_input', 'invalid_input'],
        ]);
        expect(await db.types(`SELECT status, category, message FROM ${errors}`)).toEqual({
          status: 'BIGINT',
          category: 'VARCHAR',
          message: 'VARCHAR',
        });
      } finally {
        db.close();
      }
    },
  );

  it.skipIf(!hasDuckDb)('is rebuilt by merge from shards as the same table an unsharded run writes', async () => {
    const db = await openDuckDb();
    try {
      const input = await writeInput(db, 600); // one row group: the sharding is what is tried here
      await run(runOptions(input, dir.file('whole')));
      for (const shard of [0, 1]) await run({ ...runOptions(input, dir.file(`shard${shard}`)), shard: `${shard}/2` });
      const merged = await mergeShards([dir.file('shard0'), dir.file('shard1')], dir.file('merged'));
      expect(merged.derivedFiles).toEqual([dir.file('merged/output.parquet'), dir.file('merged/errors.parquet')]);
      const table = (name: string) => `SELECT * EXCLUDE (started_at, duration_ms, trace_id) FROM ${sqlString(dir.file(name))}`;
      const difference = await db.rows(`(${table('whole/output.parquet')}) EXCEPT ALL (${table('merged/output.parquet')})`);
      expect(difference).toEqual([]);
      expect(await db.rows(`SELECT count(*) AS n FROM ${sqlString(dir.file('merged/output.parquet'))}`)).toEqual([{ n: String(600 - 1) }]);
    } finally {
      db.close();
    }
  });
});

describe('--format parquet keeps the reasoning of a paid completion without text', () => {
  it.skipIf(!hasDuckDb)('a reasoning column in both files when some record has one', async () => {
    await dir.write('in.jsonl', '{"id":"a","prompt":"hi"}\n{"id":"b","prompt":"[[sim:reasoning-length]] think"}\n');
    const report = await run({
      inputs: [dir.file('in.jsonl')],
      model: 'm',
      baseUrl: simulator.url,
      apiKey: KEY,
      out: dir.file('out'),
      format: 'parquet',
    });
    expect(report.exitCode).toBe(1);
    const db = await openDuckDb();
    try {
      const errors = await db.rows(`SELECT id, code, reasoning FROM ${sqlString(dir.file('out/errors.parquet'))}`);
      expect(errors).toEqual([{ id: 'b', code: 'length', reasoning: 'Thinking it through...' }]);
      const output = await db.rows(`SELECT id, reasoning FROM ${sqlString(dir.file('out/output.parquet'))}`);
      expect(output).toEqual([{ id: 'a', reasoning: null }]);
    } finally {
      db.close();
    }
  });
});

describe('--format parquet keeps nested input columns typed', () => {
  it.skipIf(!hasDuckDb)('lists, structs, lists of structs and structs of lists come back as DuckDB wrote them; a map as JSON', async () => {
    const db = await openDuckDb();
    try {
      const input = dir.file('nested.parquet');
      await db.run(`COPY (SELECT i AS id,
          CASE WHEN i % 4 = 0 THEN NULL WHEN i % 4 = 1 THEN [] ELSE [i, NULL, i * 2] END AS nums,
          [{'k': i, 'v': ['a', NULL]}, NULL] AS pairs,
          {'xs': CASE WHEN i % 3 = 0 THEN NULL ELSE [i::DOUBLE / 2] END, 'day': DATE '2026-01-01' + i::INTEGER,
           'inner': {'flag': i % 2 = 0, 'name': 'n' || i}} AS info,
          MAP {'a': i} AS counts
        FROM range(1, 41) t(i)) TO ${sqlString(input)} (FORMAT parquet)`);
      const report = await run({
        inputs: [input],
        model: 'm',
        baseUrl: simulator.url,
        apiKey: KEY,
        out: dir.file('out'),
        template: 'Say {{id}}',
        format: 'parquet',
      });
      expect(report.exitCode).toBe(0);
      const output = sqlString(dir.file('out/output.parquet'));
      const types = await db.types(`SELECT nums, pairs, info, counts FROM ${output}`);
      expect(types).toEqual({
        nums: 'BIGINT[]',
        pairs: 'STRUCT("k" BIGINT, "v" VARCHAR[])[]',
        info: 'STRUCT("xs" DOUBLE[], "day" DATE, "inner" STRUCT("flag" BOOLEAN, "name" VARCHAR))',
        counts: 'VARCHAR',
      });
      // Every nested value equal to the input's, nulls and empty lists included.
      const differing = await db.rows(`SELECT i.id FROM ${sqlString(input)} i JOIN ${output} o ON i.id = o.id
        WHERE i.nums IS DISTINCT FROM o.nums OR i.pairs IS DISTINCT FROM o.pairs OR i.info IS DISTINCT FROM o.info`);
      expect(differing).toEqual([]);
      expect(await db.rows(`SELECT count(*) AS n, any_value(counts ORDER BY id) AS first FROM ${output}`)).toEqual([
        { n: '40', first: '{"a":1}' },
      ]);
    } finally {
      db.close();
    }
  });
});

describe('--format parquet keeps what a DOUBLE column holds beyond JSON (issue 42, item 9)', () => {
  it('NaN and the infinities of an input DOUBLE column come out as themselves, not null', async () => {
    const { parquetWriteBuffer } = await import('hyparquet-writer');
    const { parquetReadObjects } = await import('hyparquet');
    const values = [1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, null];
    const input = await dir.write(
      'doubles.parquet',
      Buffer.from(
        parquetWriteBuffer({
          columnData: [
            { name: 'id', data: values.map((_, i) => `r${i}`), type: 'STRING' },
            { name: 'x', data: values, type: 'DOUBLE', nullable: true },
          ],
        }),
      ),
    );
    const report = await run({
      inputs: [input],
      model: 'm',
      baseUrl: simulator.url,
      apiKey: KEY,
      out: dir.file('out'),
      template: 'row {{id}}',
      format: 'parquet',
    });
    expect(report.exitCode, await dir.read('out/errors.jsonl')).toBe(0);
    const bytes = await (await import('node:fs/promises')).readFile(dir.file('out/output.parquet'));
    const rows = await parquetReadObjects({
      file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
      columns: ['id', 'x'],
    });
    expect(rows.map((row) => row.x)).toEqual(values);
  });
});
