import { hash } from 'node:crypto';

/**
 * `--repeat N`: each row is sent N times as independent requests, its samples. A sample is a row
 * of its own everywhere a row is known by its key or fingerprint: the journal (resume), the
 * response cache and the X-Client-Request-Id. With N = 1 nothing changes: no sample index, and
 * keys and fingerprints are the row's own, so earlier runs and caches still match.
 */

/**
 * Several models (`--model` repeated): a row is sent to each, and each model's answer is a row of
 * its own for the journal, the cache and resume, like a sample. The first model keeps the row's
 * own key, so a run that grows from one model to several keeps its records for the first (and one
 * that drops the others keeps them too); each other model's key is the row's, a NUL and the
 * model's name (no id of a JSONL, CSV or Parquet row is that and a model's name). A reordered
 * list changes which model keeps the row's key: the request fingerprints (which hold the model)
 * then differ and those rows are sent again, never answered by another model's record.
 */
export function modelKey(rowKey: string, models: readonly string[], modelIndex: number): string {
  return modelIndex === 0 ? rowKey : `${rowKey}\u0000${models[modelIndex]}`;
}

/** The sample indexes of a row: 0..N-1, or a single `undefined` (no sample) when N is 1. */
export function sampleIndexes(repeat: number): ReadonlyArray<number | undefined> {
  return repeat > 1 ? Array.from({ length: repeat }, (_, sample) => sample) : [undefined];
}

/**
 * A sample's journal key: the row's key and `#<sample>`. The sample is the part after the last
 * `#`, so two rows' samples never share a key within a run.
 */
export function sampleKey(rowKey: string, sample: number | undefined): string {
  return sample === undefined ? rowKey : `${rowKey}#${sample}`;
}

/**
 * A sample's fingerprint: the request's with the sample index. Every sample sends the same body,
 * but the cache must keep one answer per sample and resume must tell them apart.
 */
export function sampleFingerprint(requestFingerprint: string, sample: number | undefined): string {
  return sample === undefined ? requestFingerprint : hash('sha256', `${requestFingerprint}#${sample}`).slice(0, 32);
}

/** Records a row gets: one per model and sample. */
export function copiesPerRow(config: { repeat: number; models: readonly string[] }): number {
  return config.repeat * config.models.length;
}
