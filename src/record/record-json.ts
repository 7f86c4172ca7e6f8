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

/**
 * Whether `record`'s fields come in `RECORD_FIELDS` order. Rows' records have the same fields in
 * the same order, row after row: the last order seen and its answer are kept, and a record whose
 * names are those (the same strings, compared as they come) gets that answer without a lookup of
 * each name in RANK (a dictionary: ~20 hash lookups a row).
 */
function inFieldOrder(record: RowRecord): boolean {
  let i = 0;
  for (const name in record) {
    if (name !== lastNames[i]) return rememberedOrder(record);
    i++;
  }
  return i === lastNames.length ? lastInOrder : rememberedOrder(record);
}

let lastNames: string[] = [];
let lastInOrder = true;

function rememberedOrder(record: RowRecord): boolean {
  const names: string[] = [];
  let last = -1;
  let inOrder = true;
  for (const name in record) {
    names.push(name);
    const rank = RANK[name];
    if (rank === undefined || rank < last) inOrder = false;
    else last = rank;
  }
  lastNames = names;
  lastInOrder = inOrder;
  return inOrder;
}

function reordered(record: RowRecord): Record<string, unknown> {
  const source = record as unknown as Record<string, unknown>;
  // No prototype: a field named `__proto__` (a record read back) is a field like any other.
  const ordered = Object.create(null) as Record<string, unknown>;
  for (const name of RECORD_FIELDS) if (source[name] !== undefined) ordered[name] = source[name];
  for (const name in source) if (RANK[name] === undefined) ordered[name] = source[name];
  return ordered;
}

/**
 * `recordJson(record)` as two strings whose concatenation it is, the second holding the key mask
 * and what follows it (the fingerprint, the last field), when the mask has a character beyond
 * Latin-1 (its `…`): V8 keeps a string that holds one in two bytes a character, and both
 * JSON.stringify and the UTF-8 encoding of a two-byte string take longer a character (~4,600
 * instructions for a 730-byte record, counted by callgrind), so the rest is written as a one-byte
 * string of its own. The journal writes the two one after the other (JournalWriter.append).
 */
export function recordJsonParts(record: RowRecord): [string, string] {
  const mask = record.key_mask;
  if (mask === undefined || isLatin1(mask) || !inFieldOrder(record)) return [recordJson(record), ''];
  const { fingerprint } = record;
  const fields = record as { key_mask?: string | undefined; fingerprint?: string | undefined };
  // Fields set to undefined are left out by JSON.stringify; deleting them would slow the object down.
  // A record without a fingerprint is not given one (set to undefined, it would stay an own field).
  const hasFingerprint = fingerprint !== undefined;
  fields.key_mask = undefined;
  if (hasFingerprint) fields.fingerprint = undefined;
  let rest: string;
  try {
    rest = JSON.stringify(record);
  } finally {
    fields.key_mask = mask;
    if (hasFingerprint) fields.fingerprint = fingerprint;
  }
  if (rest === '{}') return [recordJson(record), ''];
  // The mask's part is kept with the mask (isLatin1): the same text every row of a run.
  const tail = hasFingerprint ? `${lastMaskField},"fingerprint":${JSON.stringify(fingerprint)}}` : `${lastMaskField}}`;
  return [rest.slice(0, -1), tail];
}

let lastMask = '';
let lastMaskIsLatin1 = true;
/** `,"key_mask":` and the JSON of `lastMask`. */
let lastMaskField = ',"key_mask":""';

/** Whether every character of `mask` fits a byte (a run's mask is the same string every row: the answer, and its field's JSON, are kept). */
function isLatin1(mask: string): boolean {
  if (mask !== lastMask) {
    lastMask = mask;
    lastMaskIsLatin1 = !/[^\u0000-\u00ff]/.test(mask);
    lastMaskField = `,"key_mask":${JSON.stringify(mask)}`;
  }
  return lastMaskIsLatin1;
}
