/**
 * How deep a JSON value may nest. JSON.parse reads any depth, but JSON.stringify (a record, a
 * request body, a page) recurses and overflows the stack near 3,000 levels: a value read
 * whole and written later would end the run on that row, on every resume. No row, parameter,
 * record or response needs more than a few dozen levels, so one bound, well under the stack's,
 * is enforced wherever such a value comes in (input rows, params, cache entries, record files,
 * server answers).
 */
export const MAX_JSON_DEPTH = 256;

/** The problem to report for a value nested deeper than MAX_JSON_DEPTH. */
export const TOO_DEEP = `nested deeper than ${MAX_JSON_DEPTH} levels`;

/** Whether `value` nests objects or arrays deeper than `max` levels (a loop: any depth is safe). */
export function exceedsJsonDepth(value: unknown, max = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const pending: Array<[object, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [container, depth] = pending.pop()!;
    if (depth > max) return true;
    for (const item of Object.values(container)) {
      if (typeof item === 'object' && item !== null) pending.push([item, depth + 1]);
    }
  }
  return false;
}

/**
 * `value` with every container nested deeper than `max` replaced, in place, by the text
 * `[nested deeper than N levels]`: for what a server sends beside the reply (usage details, a
 * kept response body), which is written with the record and must not stop it being written.
 */
export function cutDeepValues<T>(value: T, max = MAX_JSON_DEPTH): T {
  if (typeof value !== 'object' || value === null) return value;
  const pending: Array<[Record<string, unknown>, number]> = [[value as Record<string, unknown>, 1]];
  while (pending.length > 0) {
    const [container, depth] = pending.pop()!;
    for (const key of Object.keys(container)) {
      const item = container[key];
      if (typeof item !== 'object' || item === null) continue;
      if (depth >= max)
        Object.defineProperty(container, key, { value: `[${TOO_DEEP}]`, writable: true, enumerable: true, configurable: true });
      else pending.push([item as Record<string, unknown>, depth + 1]);
    }
  }
  return value;
}
