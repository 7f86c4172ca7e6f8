import type { SchemaTree } from 'hyparquet';
import type { LeafKind } from './parquet-kinds.js';

/**
 * The input's own columns and their kinds when every input is a Parquet file with the same
 * top-level columns (names and kinds); else null, and the rows are named by file and line. A
 * Parquet input's column keeps its type: integers INT64, floats and decimals DOUBLE, booleans,
 * timestamps TIMESTAMP, dates DATE, text STRING; lists, structs and maps come back as the
 * reader gives them to templates (JSON), times of day as ISO text.
 */
export async function sharedParquetColumns(files: readonly string[]): Promise<Array<{ name: string; kind: LeafKind }> | null> {
  if (files.length === 0 || files.some((file) => !file.toLowerCase().endsWith('.parquet'))) return null;
  const { openParquet } = await import('../input/parquet-file.js');
  const { parquetSchema } = await import('hyparquet');
  let shared: Array<{ name: string; kind: LeafKind }> | null = null;
  for (const file of files) {
    // Checked before the run; should the file have changed since, the inputs share no columns.
    const opened = await openParquet(file).catch(() => null);
    if (!opened) return null;
    await opened.close();
    const columns = parquetSchema(opened.metadata).children.map((node) => ({ name: node.element.name, kind: kindOf(node) }));
    if (shared && JSON.stringify(shared) !== JSON.stringify(columns)) return null;
    shared = columns;
  }
  return shared;
}

const TIME_TYPES = new Set(['TIMESTAMP_MILLIS', 'TIMESTAMP_MICROS']);
const TEXT_TIME_TYPES = new Set(['TIME_MILLIS', 'TIME_MICROS']);

function kindOf(node: SchemaTree): LeafKind {
  const { element } = node;
  if (node.children.length > 0) return 'JSON';
  const logical = element.logical_type?.type;
  if (logical === 'TIMESTAMP' || TIME_TYPES.has(element.converted_type ?? '')) return 'TIMESTAMP';
  if (logical === 'DATE' || element.converted_type === 'DATE') return 'DATE';
  if (logical === 'TIME' || TEXT_TIME_TYPES.has(element.converted_type ?? '') || element.type === 'INT96') return 'STRING';
  if (logical === 'DECIMAL' || element.converted_type === 'DECIMAL' || element.type === 'FLOAT' || element.type === 'DOUBLE')
    return 'DOUBLE';
  if (element.converted_type === 'JSON' || logical === 'JSON') return 'JSON';
  if (element.type === 'BOOLEAN') return 'BOOLEAN';
  if (element.type === 'INT32' || element.type === 'INT64') return 'INT64';
  return 'STRING';
}
