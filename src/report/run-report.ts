import { type Manifest, readManifest } from '../output/manifest.js';
import { countKilledSession } from '../run/killed-session.js';
import { journalHeader } from '../state/journal-recovery.js';
import type { OutDirPaths } from '../state/out-dir.js';
import { computeConfusion } from './confusion.js';
import { gradingWords } from './dataset-text.js';
import { evaluationOf } from './evaluation-stats.js';
import { withManifestTokens, withModelCosts, withModelPending } from './model-comparison.js';
import { modelOrderOf, withinModelLimit } from './model-stats.js';
import { pendingRows, samplesPerRow, usageOf } from './pending.js';
import { computeStats, type RunStats, withPending } from './stats.js';

/** What `chatbatch report DIR` shows, read from the run's files: its statistics, its title, and what it compared. */
export interface RunReportData {
  stats: RunStats;
  /** `job (status)`: the job's name, or the folder when it has none. */
  title: string;
  manifest: Manifest;
  /** `--expect`'s field, from the manifest; null without it. */
  answerField: string | null;
}

/**
 * The report of the run in `paths` (folder `dir`): the records' statistics with the manifest's
 * pending rows, tokens, dollars, samples and grading, each model's line, and the evaluation
 * (paired comparison, samples, `groupBy`). A string says why it cannot be made (no manifest, too
 * many models, a `--group-by` nothing answers): refused, exit 2.
 */
export async function runReportData(dir: string, paths: OutDirPaths, groupBy: string | null): Promise<RunReportData | string> {
  const manifest = await readManifest(paths.manifest);
  if (!manifest) return `${dir} holds no run (its manifest.json is missing, not JSON, or not a chatbatch manifest)`;
  // A session running, or killed, has paid for the rows it journaled after its last manifest write too (read only).
  if (manifest.status === 'running') await countKilledSession(manifest, paths.journal, await journalHeader(paths.journal));
  const answerField = typeof manifest.config?.expect === 'string' ? manifest.config.expect : null;
  const modelOrder = modelOrderOf(manifest);
  const computed = await withinModelLimit(dir, modelOrder, () => computeStats(paths.output, paths.errors, { modelOrder, answerField }));
  if (typeof computed === 'string') return computed;
  const counted = withPending(computed, pendingRows(manifest));
  const stats: RunStats = {
    ...counted,
    ...(computed.models
      ? {
          models: withModelPending(
            withManifestTokens(withModelCosts(computed.models, manifest.cost), manifest),
            counted.rows,
            counted.pending !== null,
          ),
        }
      : {}),
    usage: usageOf(manifest),
    ...(manifest.cost === undefined ? {} : { cost: manifest.cost }),
    repeat: samplesPerRow(manifest),
    grading: gradingWords(manifest.config),
  };
  const evaluation = await evaluationOf(paths.output, manifest, stats, groupBy);
  if (typeof evaluation === 'string') return evaluation;
  if (evaluation) stats.evaluation = evaluation.summary;
  // Models judged on different rows (a budget stop): the table compares them on the rows all answered.
  if (evaluation?.summary.common && stats.models) stats.models = { ...stats.models, common: evaluation.summary.common };
  const confusion = await computeConfusion(paths.output, {
    answerField,
    grade: typeof manifest.config?.grade === 'string' ? manifest.config.grade : 'exact',
    modelOrder,
  });
  if (confusion) stats.confusion = confusion;
  const title = `${typeof manifest.job === 'string' ? manifest.job : dir} (${String(manifest.status)})`;
  return { stats, title, manifest, answerField };
}
