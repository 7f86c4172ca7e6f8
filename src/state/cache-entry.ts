/** The entry format this version writes and reads; entries written before it was marked have none and are version 1. */
export const CACHE_ENTRY_VERSION = 1;

/**
 * What is wrong with a parsed cache entry for `fingerprint`, or null when it can be served. The
 * cache is a folder anyone may edit and other versions may share: an entry of another shape
 * would be served as a reply (a number where a string belongs, usage that is text), so every
 * field a record takes from it is checked.
 */
export function cacheEntryProblem(value: unknown, fingerprint: string): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  const entry = value as Record<string, unknown>;
  const version = entry.cache_version ?? 1;
  if (version !== CACHE_ENTRY_VERSION) return `written by another version of chatbatch (entry version ${JSON.stringify(version)})`;
  if (entry.fingerprint !== fingerprint) return 'its fingerprint is not its file name';
  if (typeof entry.reply !== 'string') return 'reply is not text';
  if (!Number.isSafeInteger(entry.status) || (entry.status as number) < 200 || (entry.status as number) > 299)
    return 'status is not a success';
  if (entry.finish_reason != null && typeof entry.finish_reason !== 'string') return 'finish_reason is not text';
  if (entry.trace_id !== null && entry.trace_id !== undefined && typeof entry.trace_id !== 'string') return 'trace_id is not text';
  for (const name of ['response_id', 'response_model', 'system_fingerprint'] as const) {
    if (entry[name] !== undefined && typeof entry[name] !== 'string') return `${name} is not text`;
  }
  if (entry.created !== undefined && !Number.isFinite(entry.created)) return 'created is not a number';
  if (entry.usage !== undefined && !isUsage(entry.usage)) return 'usage is not an object';
  if (entry.replies !== undefined && !(Array.isArray(entry.replies) && entry.replies.every((r) => r === null || typeof r === 'string'))) {
    return 'replies is not a list of texts';
  }
  return null;
}

/**
 * Usage as the server sent it: an object, whatever it holds (a record keeps a response's usage as
 * it came, and the token account decides what in it counts).
 */
function isUsage(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
