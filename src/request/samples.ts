import { hash } from 'node:crypto';

/**
 * `--repeat N`: each row is sent N times as independent requests, its samples. A sample is a row
 * of its own everywhere a row is known by its key or fingerprint: the journal (resume), the
 * response cache and the X-Client-Request-Id. With N = 1 nothing changes: no sample index, and
 * keys and fingerprints are the row's own, so earlier runs and caches still match.
 */

/**
 * Several models (`--model` repeated): a row is sent to each, and each model's answer is a row of
 * its own for the journal, the cache and resume, like a sample. One model, the directory's key
 * model, keeps the row's own key: the first model of the run that made the directory (kept in
 * its manifest as `key_model`), so a run that grows from one model to several keeps its records,
 * and reordering the models on a resume changes no key. Each other model's key is the row's, a
 * NUL and the model's name; no row id has a NUL in a run with several models (prepare.ts refuses
 * one), so no two rows' keys meet.
 */
export function modelKey(rowKey: string, model: string, keyModel: string): string {
  return model === keyModel ? rowKey : `${rowKey}\u0000${model}`;
}

/** The model that keeps rows' own keys in a directory: its manifest's word, else its (first) model, else this run's first. */
export function keyModelOf(models: readonly string[], earlier: { key_model?: unknown; config: Record<string, unknown> } | null): string {
  if (typeof earlier?.key_model === 'string') return earlier.key_model;
  if (typeof earlier?.config.model === 'string') return earlier.config.model;
  return models[0]!;
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
