/**
 * DuckDB (`@duckdb/node-api`, a devDependency whose engine ships inside its npm platform
 * package): a Parquet writer and reader nobody on the team wrote, standing in for pyarrow
 * (which this project's machines cannot install). Tests that need it are skipped where it is
 * missing: `it.skipIf(!hasDuckDb)`.
 */
import { createRequire } from 'node:module';

type DuckDbApi = typeof import('@duckdb/node-api');

function loadDuckDb(): DuckDbApi | null {
  try {
    return createRequire(import.meta.url)('@duckdb/node-api') as DuckDbApi;
  } catch {
    return null;
  }
}

const api = loadDuckDb();
export const hasDuckDb = api !== null;

export interface DuckDb {
  /** Runs SQL; the rows as JSON-friendly objects (BIGINT as a string, as DuckDB's JSON form writes it). */
  rows(sql: string): Promise<Array<Record<string, unknown>>>;
  /** Each result column's name and DuckDB type, e.g. `{ id: 'VARCHAR', n: 'BIGINT' }`. */
  types(sql: string): Promise<Record<string, string>>;
  run(sql: string): Promise<void>;
  close(): void;
}

/** An in-memory DuckDB. */
export async function openDuckDb(): Promise<DuckDb> {
  if (!api) throw new Error('@duckdb/node-api is not installed');
  const instance = await api.DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  return {
    async rows(sql) {
      return (await connection.runAndReadAll(sql)).getRowObjectsJson() as Array<Record<string, unknown>>;
    },
    async types(sql) {
      const result = await connection.runAndReadAll(sql);
      const names = result.columnNames();
      return Object.fromEntries(result.columnTypes().map((type, i) => [names[i], String(type)]));
    },
    async run(sql) {
      await connection.run(sql);
    },
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/** `path` as an SQL string literal. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
