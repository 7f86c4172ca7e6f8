import type { ManifestCost } from '../cost/cost-summary.js';
import type { RowRecord } from '../record/record.js';
import type { UsageTotals } from '../record/usage-totals.js';
import { readCheckedRecords } from './checked-records.js';
import type { Confusion } from './confusion.js';
import { type DatasetSummary, DatasetTally } from './dataset-stats.js';
import type { EvaluationSummary } from './evaluation-stats.js';
import { compareModels, type ModelComparison } from './model-comparison.js';
import { ModelTally } from './model-stats.js';
import { quantile } from './quantile.js';
import { numberOr0, stringOrNull } from './record-file.js';

export interface ErrorGroup {
  /** The HTTP status; a string only when a hand-edited file says so (shown as written, escaped). */
  status: number | string | null;
  code: string | null;
  count: number;
  example: { id: string; trace_id: string | null; message: string | undefined };
}

export interface RunStats {
  /** Rows with a record, plus the pending ones when known. With samples (repeat > 1): samples. */
  rows: number;
  /** Samples per row (the run's `repeat`, from its manifest); 1 when rows were sent once. */
  repeat: number;
  succeeded: number;
  failed: number;
  /** Rows with no record yet (from the manifest); null when unknown. */
  pending: number | null;
  cached: number;
  /** Tokens over every session, from the manifest; null when it has none (written before usage was kept). */
  usage: UsageTotals | null;
  /** Dollars over every session, from the manifest (an estimate from token usage); absent when it has none. */
  cost?: Partial<ManifestCost>;
  byStatus: Record<string, number>;
  byCategory: Record<string, number>;
  byCode: Record<string, number>;
  latency: { p50: number; p90: number; p95: number; p99: number; max: number } | null;
  attempts: Record<string, number>;
  /** Rows settled per time bucket since the first row started. */
  throughput: { bucketSeconds: number; buckets: Array<{ start: number; ok: number; failed: number }> };
  slowest: Array<{ id: string; duration_ms: number; attempts: number; trace_id: string | null }>;
  topErrors: ErrorGroup[];
  /** For charts: one point per row that got an answer. */
  points: Array<{ t: number; duration_ms: number; status: number | string | null; ok: boolean; attempts: number }>;
  /** What an evaluation asks of the replies: schema validity, refusals, truncations, sample agreement. */
  dataset: DatasetSummary;
  /** How replies were judged (`--expect gold, --grade includes`), from the manifest; absent when not known. */
  grading?: string;
  /** With judged records: pairs of models compared row by row, the majority answer and pass@k (evaluation-stats.ts). */
  evaluation?: EvaluationSummary;
  /** A label task (`--expect` with few reference answers, kept in the records): each model's confusion matrix (confusion.ts). */
  confusion?: Confusion;
  /** With more than one model in the records: one line per model, and how the models agree. */
  models?: ModelComparison;
  /** Lines of the records files that were not records (torn or hand-edited), skipped. */
  damagedLines: number;
  /** The same lines, each naming its file and line and what is wrong. */
  damaged?: string[];
}

interface LightRecord {
  /** The row's id, with `#<sample>` for a sample (and the model when there are several): what the report names it by. */
  id: string;
  model: string;
  status: number | string | null;
  code: string | null;
  category: string | null;
  attempts: number;
  duration_ms: number;
  started_at: number;
  trace_id: string | null;
  message: string | undefined;
  cached: boolean;
  ok: boolean;
}

/** The most throughput buckets a report draws, however far apart (edited) records say rows started. */
const MAX_BUCKETS = 1000;

export interface StatsOptions {
  /** Most points the latency chart draws. */
  maxPoints?: number;
  /** The run's models in the order given (its manifest's `config.models`): the comparison's order. */
  modelOrder?: readonly string[];
  /** `--expect`'s field: a JSON reply's answer, when it has that field (model-answer.ts). */
  answerField?: string | null;
}

/** Reads output.jsonl and errors.jsonl of a run and computes what `chatbatch report` shows. */
export async function computeStats(outputFile: string, errorsFile: string, options: StatsOptions = {}): Promise<RunStats> {
  const { maxPoints = 20_000, modelOrder = [], answerField = null } = options;
  const { records, dataset, models, damaged } = await readLightRecords(outputFile, errorsFile, answerField);
  const lines = models.lines(modelOrder);
  const comparison = lines ? await compareModels(outputFile, errorsFile, lines, answerField) : null;
  // A row has a record per model: the slowest rows and the errors' examples say which.
  if (comparison) for (const record of records) record.id = `${record.id} (${record.model})`;
  const answered = records.filter((r) => r.attempts > 0);
  return {
    rows: records.length,
    repeat: 1,
    pending: null,
    usage: null,
    ...tally(records),
    latency: latencyOf(answered),
    slowest: [...answered]
      .sort((a, b) => b.duration_ms - a.duration_ms)
      .slice(0, 10)
      .map((r) => ({ id: r.id, duration_ms: r.duration_ms, attempts: r.attempts, trace_id: r.trace_id })),
    ...timeline(answered, maxPoints),
    dataset,
    ...(comparison ? { models: comparison } : {}),
    damagedLines: damaged.length,
    damaged,
  };
}

/** Each record as the few fields the operations view needs; the dataset view tallied on the way. */
async function readLightRecords(outputFile: string, errorsFile: string, answerField: string | null) {
  const records: LightRecord[] = [];
  const dataset = new DatasetTally(true, answerField);
  const models = new ModelTally();
  const damaged: string[] = [];
  for (const [file, ok] of [
    [outputFile, true],
    [errorsFile, false],
  ] as const) {
    for await (const record of readCheckedRecords(file, (problem) => damaged.push(problem))) {
      records.push(lightRecord(record, ok));
      dataset.add(record, ok);
      models.add(record, ok);
    }
  }
  return { records, dataset: dataset.summary(), models, damaged };
}

/** Every field checked for its type: the files may have been edited by hand. */
function lightRecord(record: RowRecord, ok: boolean): LightRecord {
  const id = String(stringOrNull(record.id));
  const status = record.status as unknown;
  return {
    id: typeof record.sample === 'number' ? `${id}#${record.sample}` : id,
    model: String(stringOrNull(record.model)),
    status: typeof status === 'number' ? status : stringOrNull(status),
    code: stringOrNull(record.code),
    category: stringOrNull(record.category),
    attempts: numberOr0(record.attempts),
    duration_ms: numberOr0(record.duration_ms),
    started_at: Date.parse(String(record.started_at)),
    trace_id: stringOrNull(record.trace_id),
    message: stringOrNull(record.message) ?? undefined,
    cached: record.cached === true,
    ok,
  };
}

type Tally = Pick<RunStats, 'succeeded' | 'failed' | 'cached' | 'byStatus' | 'byCategory' | 'byCode' | 'attempts' | 'topErrors'>;

function tally(records: readonly LightRecord[]): Tally {
  // Keyed by what records say (a server's error code): without a prototype, `__proto__` and `constructor` count like any code.
  const counts: Tally = {
    succeeded: 0,
    failed: 0,
    cached: 0,
    byStatus: Object.create(null),
    byCategory: Object.create(null),
    byCode: Object.create(null),
    attempts: Object.create(null),
    topErrors: [],
  };
  const errors = new Map<string, ErrorGroup>();
  for (const record of records) {
    if (record.ok) counts.succeeded++;
    else counts.failed++;
    if (record.cached) counts.cached++;
    increment(counts.byStatus, record.status === null ? 'none' : String(record.status));
    increment(counts.attempts, String(record.attempts));
    if (record.ok) continue;
    increment(counts.byCategory, record.category ?? 'unknown');
    increment(counts.byCode, record.code ?? 'unknown');
    const key = `${record.status}|${record.code}`;
    const group = errors.get(key);
    if (group) group.count++;
    else
      errors.set(key, {
        status: record.status,
        code: record.code,
        count: 1,
        example: { id: record.id, trace_id: record.trace_id, message: record.message },
      });
  }
  counts.topErrors = [...errors.values()].sort((a, b) => b.count - a.count).slice(0, 10);
  return counts;
}

function latencyOf(answered: readonly LightRecord[]): RunStats['latency'] {
  if (answered.length === 0) return null;
  const sorted = answered.map((r) => r.duration_ms).sort((a, b) => a - b);
  return {
    p50: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    p95: quantile(sorted, 0.95),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1)!,
  };
}

/** Rows settled per time bucket, and the chart's points (at most `maxPoints`). */
function timeline(answered: readonly LightRecord[], maxPoints: number): Pick<RunStats, 'throughput' | 'points'> {
  const timed = answered.filter((r) => Number.isFinite(r.started_at));
  if (timed.length === 0) return { throughput: { bucketSeconds: 1, buckets: [] }, points: [] };
  // Loops, not Math.min(...spread): a spread of every row overflows the stack past ~125k rows.
  let first = Infinity;
  let last = -Infinity;
  for (const record of timed) {
    first = Math.min(first, record.started_at);
    last = Math.max(last, record.started_at + record.duration_ms);
  }
  const span = Math.max(1, (last - first) / 1000);
  // About 60 buckets; rows started years apart (edited records) still get at most MAX_BUCKETS.
  const bucketSeconds = Math.max(niceBucket(span / 60), Math.ceil(span / MAX_BUCKETS));
  const bucketCount = Math.floor(span / bucketSeconds) + 1;
  const buckets = Array.from({ length: bucketCount }, (_, i) => ({ start: i * bucketSeconds, ok: 0, failed: 0 }));
  for (const record of timed) {
    const end = (record.started_at + record.duration_ms - first) / 1000;
    const bucket = buckets[Math.min(buckets.length - 1, Math.floor(end / bucketSeconds))]!;
    if (record.ok) bucket.ok++;
    else bucket.failed++;
  }
  const points: RunStats['points'] = [];
  const step = Math.max(1, Math.ceil(timed.length / maxPoints));
  for (let i = 0; i < timed.length; i += step) {
    const record = timed[i]!;
    points.push({
      t: (record.started_at - first) / 1000,
      duration_ms: record.duration_ms,
      status: record.status,
      ok: record.ok,
      attempts: record.attempts,
    });
  }
  return { throughput: { bucketSeconds, buckets }, points };
}

/** The stats with the rows the records do not show: those still pending. */
export function withPending(stats: RunStats, pending: number | null): RunStats {
  return { ...stats, pending, rows: stats.succeeded + stats.failed + (pending ?? 0) };
}

function increment(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

function niceBucket(seconds: number): number {
  for (const step of [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600]) if (seconds <= step) return step;
  return 3600;
}
