import type { SchemaTree } from 'hyparquet';
import type { ColumnKind, LeafKind } from './parquet-kinds.js';

/**
 * The input's own columns and their kinds when every input is a Parquet file with the same
 * top-level columns (names and kinds); else null, and the rows are named by file and line. A
 * Parquet input's column keeps its type: integers INT64, floats and decimals DOUBLE, booleans,
 * timestamps TIMESTAMP, dates DATE, text STRING, lists lists and structs structs of their
 * members' kinds; maps (and lists of the older shapes) come back as the reader gives them to
 * templates (JSON), times of day as ISO text.
 */
export async function sharedParquetColumns(files: readonly string[]): Promise<Array<{ name: string; kind: ColumnKind }> | null> {
  if (files.length === 0 || files.some((file) => !file.toLowerCase().endsWith('.parquet'))) return null;
  const { openParquet } = await import('../input/parquet-file.js');
  const { parquetSchema } = await import('hyparquet');
  let shared: Array<{ name: string; kind: ColumnKind }> | null = null;
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

/** Deeper nesting is written as JSON: no table a person reads nests this far. */
const MAX_NESTING = 16;

/** The column an input column of this schema becomes in our Parquet files. */
export function kindOf(node: SchemaTree, depth = 0): ColumnKind {
  if (node.element.repetition_type === 'REPEATED') {
    // A repeated field outside a LIST annotation is a list of itself (the format's older shape).
    return node.children.length > 0 ? 'JSON' : { list: leafKind(node) };
  }
  if (node.children.length === 0) return leafKind(node);
  if (depth >= MAX_NESTING) return 'JSON';
  const annotation = node.element.logical_type?.type ?? node.element.converted_type;
  if (annotation === 'LIST') return listKind(node, depth);
  if (annotation !== undefined) return 'JSON'; // a map: its keys need not be text
  return { struct: node.children.map((child) => ({ name: child.element.name, kind: kindOf(child, depth + 1) })) };
}

/**
 * A LIST: one repeated group of one element (the standard three levels), or a repeated leaf (two
 * levels); any other shape is JSON
 * (https://github.com/apache/parquet-format/blob/master/LogicalTypes.md#backward-compatibility-rules).
 */
function listKind(node: SchemaTree, depth: number): ColumnKind {
  const repeated = node.children[0];
  if (node.children.length !== 1 || repeated?.element.repetition_type !== 'REPEATED') return 'JSON';
  if (repeated.children.length === 0) return { list: leafKind(repeated) };
  if (repeated.children.length !== 1) return 'JSON';
  return { list: kindOf(repeated.children[0]!, depth + 1) };
}

function leafKind(node: SchemaTree): LeafKind {
  const { element } = node;
  const logical = element.logical_type?.type;
  // INT96: the timestamps Impala, Hive and older Spark write (hyparquet reads them as times).
  if (logical === 'TIMESTAMP' || TIME_TYPES.has(element.converted_type ?? '') || element.type === 'INT96') return 'TIMESTAMP';
  if (logical === 'DATE' || element.converted_type === 'DATE') return 'DATE';
  if (logical === 'TIME' || TEXT_TIME_TYPES.has(element.converted_type ?? '')) return 'STRING';
  if (logical === 'DECIMAL' || element.converted_type === 'DECIMAL' || element.type === 'FLOAT' || element.type === 'DOUBLE')
    return 'DOUBLE';
  if (element.converted_type === 'JSON' || logical === 'JSON') return 'JSON';
  if (element.type === 'BOOLEAN') return 'BOOLEAN';
  if (element.type === 'INT32' || element.type === 'INT64') return 'INT64';
  return 'STRING';
}
