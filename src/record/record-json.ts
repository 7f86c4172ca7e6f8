import { RECORD_FIELDS, type RowRecord } from './record.js';

/** Each field's place in `RECORD_FIELDS`. A null-prototype object: a name such as `constructor` is no field. */
const RANK: Readonly<Record<string, number>> = Object.assign(
  Object.create(null) as Record<string, number>,
  Object.fromEntries(RECORD_FIELDS.map((name, rank) => [name, rank])),
);

/**
 * The record as the one line it is written as (no newline): its fields in `RECORD_FIELDS`
 * order, whatever order the object got them in (spreads, `withSample`, `withCorrect`, a record
 * read back and changed). A field the list does not name (a record of another version read
 * back) is kept, after the named ones.
 *
 * The builders make records in this order already, and such a record goes to JSON.stringify
 * as it is: this runs once per row, and checking the order costs a small part of what a copy
 * in order would.
 */
export function recordJson(record: RowRecord): string {
  return JSON.stringify(inFieldOrder(record) ? record : reordered(record));
}

function inFieldOrder(record: RowRecord): boolean {
  let last = -1;
  for (const name in record) {
    const rank = RANK[name];
    if (rank === undefined || rank < last) return false;
    last = rank;
  }
  return true;
}

function reordered(record: RowRecord): Record<string, unknown> {
  const source = record as unknown as Record<string, unknown>;
  // No prototype: a field named `__proto__` (a record read back) is a field like any other.
  const ordered = Object.create(null) as Record<string, unknown>;
  for (const name of RECORD_FIELDS) if (source[name] !== undefined) ordered[name] = source[name];
  for (const name in source) if (RANK[name] === undefined) ordered[name] = source[name];
  return ordered;
}
