import type { SchemaElement } from 'hyparquet';

/**
 * The column types chatbatch writes in Parquet, and how a JSON value becomes one. Each column is
 * OPTIONAL: a value that does not fit its column (a reply field of another type in a later row)
 * is written as null, never as something else.
 */
export type LeafKind = 'STRING' | 'INT64' | 'DOUBLE' | 'BOOLEAN' | 'JSON' | 'TIMESTAMP' | 'DATE';
/** A leaf, a struct of named fields, or a list of elements of one kind. */
export type ColumnKind = LeafKind | { struct: ReadonlyArray<StructField> } | { list: ColumnKind };
export interface StructField {
  name: string;
  kind: ColumnKind;
}

const LEAF_ELEMENTS: Readonly<Record<LeafKind, Omit<SchemaElement, 'name'>>> = {
  STRING: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
  INT64: { type: 'INT64' },
  DOUBLE: { type: 'DOUBLE' },
  BOOLEAN: { type: 'BOOLEAN' },
  JSON: { type: 'BYTE_ARRAY', converted_type: 'JSON' },
  TIMESTAMP: { type: 'INT64', converted_type: 'TIMESTAMP_MILLIS' },
  DATE: { type: 'INT32', converted_type: 'DATE' },
};

/**
 * The schema elements of one column (a struct: the group, then its fields; a list: the three
 * levels the format's LIST annotation asks for, https://github.com/apache/parquet-format/blob/master/LogicalTypes.md#lists).
 */
export function schemaElements(name: string, kind: ColumnKind): SchemaElement[] {
  if (typeof kind === 'string') return [{ name, ...LEAF_ELEMENTS[kind], repetition_type: 'OPTIONAL' }];
  if ('list' in kind) {
    return [
      { name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      ...schemaElements('element', kind.list),
    ];
  }
  return [
    { name, repetition_type: 'OPTIONAL', num_children: kind.struct.length },
    ...kind.struct.flatMap((field) => schemaElements(field.name, field.kind)),
  ];
}

/** The names a non-finite double has in a row's fields (input/parquet-values.ts). */
const NON_FINITE: ReadonlySet<string> = new Set(['NaN', 'Infinity', '-Infinity']);

/** `value` as the writer takes it for a column of `kind` (INT64 a bigint, TIMESTAMP and DATE a Date, JSON the value itself); null when it does not fit. */
export function columnValue(kind: ColumnKind, value: unknown, exactText?: string): unknown {
  if (value === null || value === undefined) return null;
  if (typeof kind !== 'string') {
    if ('struct' in kind) return structValue(kind.struct, value);
    return Array.isArray(value) ? value.map((element) => columnValue(kind.list, element)) : null;
  }
  switch (kind) {
    case 'STRING':
      return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
    case 'INT64':
      if (exactText !== undefined && /^-?\d+$/.test(exactText)) return BigInt(exactText);
      return typeof value === 'number' && Number.isFinite(value) ? BigInt(Math.trunc(value)) : null;
    case 'DOUBLE':
      // A Parquet input's NaN and infinities reach the row as their names (JSON has none): a DOUBLE holds them.
      return typeof value === 'number' ? value : typeof value === 'string' && NON_FINITE.has(value) ? Number(value) : null;
    case 'BOOLEAN':
      return typeof value === 'boolean' ? value : null;
    case 'JSON':
      return value; // the writer writes it as JSON text
    case 'TIMESTAMP': {
      const time = typeof value === 'string' ? new Date(value) : null;
      return time && !Number.isNaN(time.getTime()) ? time : null;
    }
    case 'DATE': {
      // The reader gives a date as the ISO text of its midnight, UTC; a DATE column holds the day.
      const day = typeof value === 'string' ? new Date(value) : null;
      return day && !Number.isNaN(day.getTime()) && day.getTime() % 86_400_000 === 0 ? day : null;
    }
  }
}

function structValue(fields: ReadonlyArray<StructField>, value: unknown): unknown {
  if (typeof value !== 'object' || Array.isArray(value) || value === null) return null;
  const object = value as Record<string, unknown>;
  const struct: Record<string, unknown> = {};
  for (const { name, kind } of fields) struct[name] = columnValue(kind, Object.hasOwn(object, name) ? object[name] : null);
  return struct;
}

/** What the values seen of one field say its column should be: integers only INT64, numbers DOUBLE, and so on; JSON when mixed. */
export class KindTally {
  private readonly seen = new Set<string>();

  add(value: unknown): void {
    if (value === null || value === undefined) return;
    if (typeof value === 'number') this.seen.add(Number.isInteger(value) ? 'int' : 'float');
    else if (typeof value === 'string' || typeof value === 'boolean') this.seen.add(typeof value);
    else this.seen.add('json');
  }

  get kind(): LeafKind {
    const seen = [...this.seen].sort().join(',');
    if (seen === 'int') return 'INT64';
    if (seen === 'float' || seen === 'float,int') return 'DOUBLE';
    if (seen === 'boolean') return 'BOOLEAN';
    if (seen === 'string' || seen === '') return 'STRING';
    return 'JSON';
  }
}
