/**
 * A manifest is our file, but by the time it is read it may be hand-edited, torn by a full disk
 * or written by another tool: every reader checks the fields it relies on before trusting them,
 * so a foreign file is "no readable manifest", never a TypeError deep in a report or merge.
 */
export function isManifestShaped(value: unknown): boolean {
  if (!isObject(value)) return false;
  const counts = value.counts;
  return (
    typeof value.status === 'string' &&
    typeof value.job_fingerprint === 'string' &&
    isObject(value.config) &&
    Array.isArray(value.inputs) &&
    value.inputs.every((input) => isObject(input) && typeof input.path === 'string') &&
    isObject(counts) &&
    ['rows', 'succeeded', 'failed', 'pending'].every((name) => isCount(counts[name])) &&
    isObject(counts.by_category) &&
    Object.values(counts.by_category).every(isCount) &&
    typeof value.started_at === 'string' &&
    isCount(value.attempts_total) &&
    isCount(value.resumes) &&
    Array.isArray(value.sessions) &&
    value.sessions.every(isObject) &&
    (value.usage === undefined || isObject(value.usage))
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}
