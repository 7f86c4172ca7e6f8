import type { InputRow } from './row.js';
import { sourceTextOf } from './source-text.js';

/**
 * The row's id. With `idField`: that field when it is a non-empty string or a finite number (as written),
 * else `<file>:<line>`. Without: `id`, else `custom_id` (Batch API lines), else `<file>:<line>`.
 */
export function rowId(row: InputRow, idField?: string): string {
  const fields = row.fields;
  if (fields) {
    for (const name of idField ? [idField] : DEFAULT_ID_FIELDS) {
      if (!Object.hasOwn(fields, name)) continue;
      const value = fields[name];
      if (typeof value === 'string' && value !== '') return value;
      // As written in the row: 1234567890123456789 stays that, not the double 1234567890123456800.
      if (typeof value === 'number' && Number.isFinite(value)) return sourceTextOf(fields, name) ?? String(value);
    }
  }
  return `${row.file}:${row.line}`;
}

const DEFAULT_ID_FIELDS = ['id', 'custom_id'] as const;
