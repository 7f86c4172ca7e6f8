import type { Shard } from '../input/shard.js';
import type { RunConfig } from '../job/config.js';
import type { Manifest } from '../output/manifest.js';
import { categoryOf, DROPPED, SUCCEEDED } from '../record/outcome-code.js';
import type { FailureCategory } from '../record/record.js';
import type { PreviousResult } from '../state/previous-results.js';
import { OutDirInUseError } from './errors.js';

/** Whether a row settled in an earlier session is kept as it is on --resume (not sent again). */
export function reusable(earlier: PreviousResult, fingerprint: string, config: Pick<RunConfig, 'retryFailed'>): boolean {
  if (earlier.outcome === DROPPED || !earlier.hasFingerprint(fingerprint)) return false;
  if (earlier.outcome === SUCCEEDED) return true;
  const category = categoryOf(earlier.outcome);
  if (config.retryFailed === 'all') return category === 'invalid_input';
  return category === null || !config.retryFailed.includes(category);
}

/** Whether --retry-failed sends this category's failed rows again. */
export function rerunsFailed(config: Pick<RunConfig, 'retryFailed'>, category: FailureCategory): boolean {
  if (config.retryFailed === 'all') return category !== 'invalid_input';
  return config.retryFailed.includes(category);
}

/**
 * Which rows a directory holds is decided by its shard (`--shard K/N`, or the whole input) and,
 * in a shard, by the id field whose values are hashed to pick the shard. A --resume that changes
 * either would send rows that belong to another shard's directory, paid twice: resuming shard
 * 1/4 as 1/2 sent 1,975 of 2,000 rows, half of them another shard's. Refused before anything is
 * sent, naming both; --allow-dropped-rows does not lift it (no record would be dropped).
 */
export function refuseChangedRowSet(config: Pick<RunConfig, 'shard' | 'idField' | 'outDir'>, earlier: Manifest | null): void {
  if (!earlier || !Object.hasOwn(earlier.config, 'shard')) return; // a manifest that never said
  const before = (earlier.config.shard ?? null) as Shard | null;
  const was = describeShard(before);
  const now = describeShard(config.shard);
  if (was !== now) {
    throw new OutDirInUseError(
      `--resume: ${config.outDir} holds ${was}, but this run asks for ${now}: a directory holds one shard's rows (resumed as another, it would send rows that are another shard's, paid twice). Nothing was sent.\n` +
        `  resume it with ${before ? `--shard ${before.index}/${before.count}` : 'no --shard'}, or give ${now} an --out of its own.`,
    );
  }
  const idFieldBefore = (earlier.config.idField ?? null) as string | null;
  if (config.shard && idFieldBefore !== config.idField) {
    const shown = (field: string | null) => (field === null ? 'no --id-field' : `--id-field ${field}`);
    throw new OutDirInUseError(
      `--resume: ${config.outDir} holds ${was}, picked by ${shown(idFieldBefore)}, but this run has ${shown(config.idField)}: a row's id picks its shard, so the rows would be another set, some of them another shard's. Nothing was sent.\n` +
        `  resume it with ${shown(idFieldBefore)}, or give this run an --out of its own.`,
    );
  }
}

function describeShard(shard: Shard | null): string {
  return shard ? `shard ${shard.index}/${shard.count}` : 'the whole input (no --shard)';
}
