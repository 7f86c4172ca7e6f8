/**
 * A manifest is our file, but by the time it is read it may be hand-edited, torn by a full disk
 * or written by another tool: every reader checks the fields it relies on before trusting them,
 * so a foreign file is "not a chatbatch manifest", never a TypeError deep in a report or merge.
 *
 * The least a reader needs (a status, what `report` reads), with every other field of the right
 * type when present.
 */
export function isManifestShaped(value: unknown): boolean {
  if (!isObject(value)) return false;
  return (
    typeof value.status === 'string' &&
    optional(value.counts, isCounts) &&
    optional(value.job, (job) => typeof job === 'string' || job === null) &&
    optional(value.job_fingerprint, (fingerprint) => typeof fingerprint === 'string') &&
    optional(value.config, isObject) &&
    optional(
      value.inputs,
      (inputs) => Array.isArray(inputs) && inputs.every((input) => isObject(input) && typeof input.path === 'string'),
    ) &&
    optional(value.started_at, (at) => typeof at === 'string') &&
    optional(value.attempts_total, isCount) &&
    optional(value.resumes, isCount) &&
    optional(value.sessions, (sessions) => Array.isArray(sessions) && sessions.every(isObject)) &&
    optional(value.usage, isObject)
  );
}

/** Every field a manifest of ours has: what `--resume` carries forward and `merge` combines. */
export function isCompleteManifest(value: unknown): boolean {
  return (
    isManifestShaped(value) &&
    isObject(value) &&
    ['job_fingerprint', 'config', 'inputs', 'started_at', 'attempts_total', 'resumes', 'sessions'].every(
      (name) => value[name] !== undefined,
    ) &&
    isObject(value.counts) &&
    value.counts.by_category !== undefined
  );
}

function isCounts(counts: unknown): boolean {
  return (
    isObject(counts) &&
    ['rows', 'succeeded', 'failed', 'pending'].every((name) => isCount(counts[name])) &&
    (counts.by_category === undefined || (isObject(counts.by_category) && Object.values(counts.by_category).every(isCount)))
  );
}

function optional(value: unknown, check: (value: unknown) => boolean): boolean {
  return value === undefined || check(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}
