import { classScores } from './confusion-text.js';
import type { DatasetSummary } from './dataset-stats.js';
import type { ModelLine } from './model-stats.js';
import type { RunReportData } from './run-report.js';
import { wilsonInterval } from './wilson.js';

/** Bumped when a field changes meaning or goes away; new fields may come without it. */
const JSON_REPORT_VERSION = 1;

type Accuracy = {
  correct: number;
  judged: number;
  unjudged: number;
  rate: number | null;
  interval_95: { low: number; high: number } | null;
};

/** Right of judged, with the share and its 95% Wilson interval (shares from 0 to 1); null when nothing was judged. */
function accuracyJson(accuracy: DatasetSummary['accuracy']): Accuracy | null {
  if (accuracy === null) return null;
  const interval = wilsonInterval(accuracy.correct, accuracy.judged);
  return {
    ...accuracy,
    rate: accuracy.judged === 0 ? null : accuracy.correct / accuracy.judged,
    interval_95: interval && { low: interval.low, high: interval.high },
  };
}

/**
 * `chatbatch report DIR --json`: what the text report says, as one JSON object for scripts and
 * dashboards (docs/reporting.md lists its fields). Shares are fractions from 0 to 1, dollars are
 * US dollars (an estimate from token usage), tokens are the endpoint's own figures. `models` has
 * a line per model for a run of one model too, so a script reads every run alike.
 */
export function jsonReport(data: RunReportData, dir: string): Record<string, unknown> {
  const { stats, manifest } = data;
  const evaluation = stats.evaluation;
  return {
    report_version: JSON_REPORT_VERSION,
    dir,
    job: typeof manifest.job === 'string' ? manifest.job : null,
    status: manifest.status,
    counts: {
      records: stats.rows,
      succeeded: stats.succeeded,
      failed: stats.failed,
      pending: stats.pending,
      cached: stats.cached,
      samples_per_row: stats.repeat,
    },
    tokens: stats.usage,
    cost: { usd: stats.cost?.usd ?? null, source: stats.cost?.source ?? null, estimate: true },
    grading: stats.dataset.accuracy === null ? null : (stats.grading ?? '--expect'),
    accuracy: accuracyJson(stats.dataset.accuracy),
    models: modelsJson(data),
    common_rows: snakeKeys(stats.models?.common ?? null),
    agreement: stats.models
      ? {
          rows: stats.models.agreement.rows,
          unanimous: stats.models.agreement.unanimous,
          pairs: stats.models.agreement.pairs,
          ...(stats.models.agreement.overall ? { overall: stats.models.agreement.overall } : {}),
        }
      : null,
    paired: snakeKeys(evaluation?.pairs ?? []),
    samples: stats.repeat > 1 ? snakeKeys({ agreement: stats.dataset.agreement, majorityAndPassAtK: evaluation?.samples ?? null }) : null,
    groups: snakeKeys(evaluation?.groups ?? null),
    judge: snakeKeys(evaluation?.judge ?? null),
    confusion: confusionJson(data),
    failures: { by_status: stats.byStatus, by_category: stats.byCategory, by_code: stats.byCode },
    latency_ms: stats.latency,
    damaged_lines: stats.damagedLines,
  };
}

/**
 * The report's own objects with their keys in snake_case, as the manifest and records spell
 * theirs (`onlyA` → `only_a`). Only for objects whose keys are all names of ours: a map keyed by
 * data (status codes, error codes, model names) keeps its keys.
 */
function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`), snakeKeys(item)]),
  );
}

/** A line per model: the comparison's lines, or for a run of one model the run's own figures. */
function modelsJson({ stats, manifest }: RunReportData): Array<Record<string, unknown>> {
  if (stats.models) {
    const common = new Map((stats.models.common?.byModel ?? []).map((entry) => [entry.model, entry]));
    return stats.models.models.map((line) => modelJson(line, common.get(line.model)));
  }
  const config = manifest.config ?? {};
  return [
    {
      model: typeof config.model === 'string' ? config.model : null,
      succeeded: stats.succeeded,
      failed: stats.failed,
      pending: stats.pending,
      accuracy: accuracyJson(stats.dataset.accuracy),
      valid: stats.dataset.checked === 0 ? null : { valid: stats.dataset.valid, checked: stats.dataset.checked },
      refused: stats.dataset.refused,
      truncated: stats.dataset.truncated,
      latency_ms: stats.latency && { p50: stats.latency.p50, p95: stats.latency.p95 },
      tokens: stats.usage && { prompt: stats.usage.prompt_tokens, completion: stats.usage.completion_tokens },
      tokens_from: stats.usage ? 'manifest' : null,
      usd: typeof stats.cost?.usd === 'number' ? stats.cost.usd : null,
    },
  ];
}

function modelJson(line: ModelLine, common: { right: number; judged: number } | undefined): Record<string, unknown> {
  return {
    model: line.model,
    succeeded: line.succeeded,
    failed: line.failed,
    pending: line.pending ?? null,
    accuracy: accuracyJson(line.dataset.accuracy),
    ...(common ? { accuracy_on_common_rows: accuracyJson({ correct: common.right, judged: common.judged, unjudged: 0 }) } : {}),
    valid: line.dataset.checked === 0 ? null : { valid: line.dataset.valid, checked: line.dataset.checked },
    refused: line.dataset.refused,
    truncated: line.dataset.truncated,
    latency_ms: line.latency,
    tokens: line.tokens,
    tokens_from: line.tokensFrom,
    usd: line.usd ?? null,
  };
}

/** Each model's matrix with each class's recall and precision (null where nothing counts toward it). */
function confusionJson({ stats }: RunReportData): Record<string, unknown> | null {
  const confusion = stats.confusion;
  if (!confusion) return null;
  const share = ([part, whole]: [number, number]) => (whole === 0 ? null : part / whole);
  return {
    field: confusion.field,
    classes: confusion.classes,
    columns: [...confusion.classes, '(other)'],
    by_model: confusion.byModel.map((matrix) => ({
      model: matrix.model,
      counts: matrix.counts,
      recall: classScores(matrix, confusion.classes.length).map((score) => share(score.recall)),
      precision: classScores(matrix, confusion.classes.length).map((score) => share(score.precision)),
    })),
  };
}
