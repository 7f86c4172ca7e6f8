import type { InputFormat } from './row.js';

export const ACCEPTED_EXTENSIONS = '.jsonl, .ndjson, .csv';

/** The reader a file needs, from its extension (case-insensitive); null when we have none. */
export function formatOf(file: string): InputFormat | null {
  const lower = file.toLowerCase();
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  if (lower.endsWith('.csv')) return 'csv';
  return null;
}
