import type { ParquetParsers } from 'hyparquet';
import { rememberSourceText } from './source-text.js';

/**
 * hyparquet's parsers with its text decoding replaced: its TextDecoder drops a byte order mark
 * that starts a value; Buffer keeps the value as written, as DuckDB reads it and as
 * TextColumnPages does, so a text column reads the same whichever decoder its pages need.
 */
export const TEXT_AS_WRITTEN: Partial<ParquetParsers> = {
  stringFromBytes: (bytes: Uint8Array | undefined) =>
    bytes && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'),
};

/**
 * A Parquet row's columns as row fields, the values JSON can hold, so templates, ids and
 * `--keep-input` treat them as they treat a JSON line's: an INT64 is a number (kept as written,
 * digit for digit, when a double cannot hold it: see source-text.ts), a null stays null, a
 * timestamp or date is its ISO-8601 text, bytes that are not text are base64, and a list or
 * struct is a JSON list or object whose members are converted the same way.
 */
export function parquetFields(row: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  let exact: Record<string, string> | null = null;
  for (const name of Object.keys(row)) {
    const value = row[name];
    if (typeof value === 'bigint' && !isSafe(value)) (exact ??= {})[name] = value.toString();
    setField(fields, name, jsonValue(value));
  }
  if (exact) rememberSourceText(fields, exact);
  return fields;
}

function jsonValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value); // NaN, Infinity: JSON has none
  if (typeof value !== 'object') return value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  if (Array.isArray(value) || ArrayBuffer.isView(value)) return Array.from(value as ArrayLike<unknown>, jsonValue);
  const object: Record<string, unknown> = {};
  for (const name of Object.keys(value)) setField(object, name, jsonValue((value as Record<string, unknown>)[name]));
  return object;
}

function isSafe(value: bigint): boolean {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER);
}

/** A column named `__proto__` must become a field, not replace the object's prototype. */
function setField(fields: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(fields, name, { value, enumerable: true, writable: true, configurable: true });
  else fields[name] = value;
}
