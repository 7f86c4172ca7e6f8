import type { UsageTotals } from '../output/usage-totals.js';
import { readCheckedRecords } from './checked-records.js';

export interface ErrorGroup {
  status: number | null;
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
  points: Array<{ t: number; duration_ms: number; status: number | null; ok: boolean; attempts: number }>;
  /** Record lines skipped as damaged, each naming its file and line. */
  damaged?: string[];
}

interface LightRecord {
  /** The row's id, with `#<sample>` for a sample: what the report names it by. */
  id: string;
  status: number | null;
  code: string | null;
  category: string | undefined;
  attempts: number;
  duration_ms: number;
  started_at: string;
  trace_id: string | null;
  message: string | undefined;
  cached: boolean | undefined;
  ok: boolean;
}

/** Reads output.jsonl and errors.jsonl of a run and computes what `chatbatch report` shows. */
export async function computeStats(outputFile: string, errorsFile: string, maxPoints = 20_000): Promise<RunStats> {
  const records: LightRecord[] = [];
  const damaged: string[] = [];
  for (const [file, ok] of [
    [outputFile, true],
    [errorsFile, false],
  ] as const) {
    for await (const record of readCheckedRecords(file, (problem) => damaged.push(problem))) {
      records.push({
        id: record.sample === undefined ? record.id : `${record.id}#${record.sample}`,
        status: record.status,
        code: record.code,
        category: record.category,
        attempts: record.attempts,
        duration_ms: record.duration_ms,
        started_at: record.started_at,
        trace_id: record.trace_id,
        message: record.message,
        cached: record.cached,
        ok,
      });
    }
  }
  const stats: RunStats = {
    rows: records.length,
    repeat: 1,
    succeeded: 0,
    failed: 0,
    pending: null,
    cached: 0,
    usage: null,
    byStatus: {},
    byCategory: {},
    byCode: {},
    latency: null,
    attempts: {},
    throughput: { bucketSeconds: 1, buckets: [] },
    slowest: [],
    topErrors: [],
    points: [],
    ...(damaged.length > 0 ? { damaged } : {}),
  };
  const errors = new Map<string, ErrorGroup>();
  const answered: number[] = [];
  for (const record of records) {
    if (record.ok) stats.succeeded++;
    else stats.failed++;
    if (record.cached) stats.cached++;
    increment(stats.byStatus, record.status === null ? 'none' : String(record.status));
    increment(stats.attempts, String(record.attempts));
    if (!record.ok) {
      increment(stats.byCategory, record.category ?? 'unknown');
      increment(stats.byCode, record.code ?? 'unknown');
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
    if (record.attempts > 0) answered.push(record.duration_ms);
  }
  answered.sort((a, b) => a - b);
  if (answered.length > 0) {
    stats.latency = {
      p50: quantile(answered, 0.5),
      p90: quantile(answered, 0.9),
      p95: quantile(answered, 0.95),
      p99: quantile(answered, 0.99),
      max: answered.at(-1)!,
    };
  }
  stats.topErrors = [...errors.values()].sort((a, b) => b.count - a.count).slice(0, 10);
  stats.slowest = records
    .filter((r) => r.attempts > 0)
    .sort((a, b) => b.duration_ms - a.duration_ms)
    .slice(0, 10)
    .map((r) => ({ id: r.id, duration_ms: r.duration_ms, attempts: r.attempts, trace_id: r.trace_id }));

  const timed = records.filter((r) => r.attempts > 0).map((r) => ({ start: Date.parse(r.started_at), record: r }));
  if (timed.length > 0) {
    // Loops, not Math.min(...spread): a spread of every row overflows the stack past ~125k rows.
    let first = Infinity;
    let last = -Infinity;
    for (const { start, record } of timed) {
      first = Math.min(first, start);
      last = Math.max(last, start + record.duration_ms);
    }
    const span = Math.max(1, (last - first) / 1000);
    // About 60 buckets; rows started years apart (edited records) still get at most MAX_BUCKETS.
    const bucketSeconds = Math.max(niceBucket(span / 60), Math.ceil(span / MAX_BUCKETS));
    const buckets = Array.from({ length: Math.floor(span / bucketSeconds) + 1 }, (_, i) => ({
      start: i * bucketSeconds,
      ok: 0,
      failed: 0,
    }));
    for (const { start, record } of timed) {
      const end = (start + record.duration_ms - first) / 1000;
      const bucket = buckets[Math.min(buckets.length - 1, Math.floor(end / bucketSeconds))]!;
      if (record.ok) bucket.ok++;
      else bucket.failed++;
    }
    stats.throughput = { bucketSeconds, buckets };
    const step = Math.max(1, Math.ceil(timed.length / maxPoints));
    for (let i = 0; i < timed.length; i += step) {
      const { start, record } = timed[i]!;
      stats.points.push({
        t: (start - first) / 1000,
        duration_ms: record.duration_ms,
        status: record.status,
        ok: record.ok,
        attempts: record.attempts,
      });
    }
  }
  return stats;
}

/** The stats with the rows the records do not show: those still pending. */
export function withPending(stats: RunStats, pending: number | null): RunStats {
  return { ...stats, pending, rows: stats.succeeded + stats.failed + (pending ?? 0) };
}

/** The most throughput buckets a report draws, whatever the records' times say. */
const MAX_BUCKETS = 1000;

function increment(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** Nearest-rank quantile of sorted values. */
export function quantile(sorted: readonly number[], q: number): number {
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1]!;
}

function niceBucket(seconds: number): number {
  for (const step of [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600]) if (seconds <= step) return step;
  return 3600;
}
