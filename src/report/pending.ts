import type { Manifest } from '../output/manifest.js';
import type { UsageTotals } from '../record/usage-totals.js';

/**
 * Rows of the input with no record (never sent, or cut off when the run stopped), as the
 * manifest counted them when the run ended; null when it cannot say: a run still going, or one
 * killed before it could count (its manifest still says `running`).
 */
export function pendingRows(manifest: Pick<Manifest, 'status'> & { counts?: Partial<Manifest['counts']> }): number | null {
  if (manifest.status === 'running') return null;
  if (typeof manifest.counts?.pending === 'number') return manifest.counts.pending;
  return manifest.status === 'complete' || manifest.status === 'finished_with_failures' ? 0 : null;
}

/** The line a report adds under the counts; null when nothing is pending. */
export function describePending(pending: number | null, unit: 'row' | 'sample' | 'record' = 'row'): string | null {
  if (pending === null) return 'pending: the manifest has no final count (the run is still going, or was killed); --resume finishes it';
  if (pending === 0) return null;
  return `${pending} ${unit}(s) pending: not answered when the run stopped; run it again with --resume to finish them`;
}

/** Samples per row of the run in a manifest (`--repeat`); 1 for a run without it. */
export function samplesPerRow(manifest: { config?: Record<string, unknown> }): number {
  const repeat = manifest.config?.repeat;
  return typeof repeat === 'number' && Number.isSafeInteger(repeat) && repeat > 1 ? repeat : 1;
}

/** The manifest's token totals when every figure is a number; null otherwise (none kept, or a damaged file). */
export function usageOf(manifest: { usage?: unknown }): UsageTotals | null {
  const usage = manifest.usage;
  if (typeof usage !== 'object' || usage === null) return null;
  const figures = Object.values(usage as Record<string, unknown>);
  return figures.length > 0 && figures.every((value) => typeof value === 'number' && Number.isFinite(value))
    ? (usage as UsageTotals)
    : null;
}

/** What a run's pending count counts: records with several models, samples with --repeat, else rows. */
export function pendingUnit(stats: { repeat: number; models?: unknown }): 'row' | 'sample' | 'record' {
  return stats.models ? 'record' : stats.repeat > 1 ? 'sample' : 'row';
}
