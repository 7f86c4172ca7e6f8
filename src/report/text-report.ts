import { costText } from '../cost/cost-summary.js';
import { confusionLines } from './confusion-text.js';
import { datasetLines, leastConsistentLines } from './dataset-text.js';
import { evaluationLines } from './evaluation-text.js';
import { modelComparisonLines } from './model-text.js';
import { describePending, pendingUnit } from './pending.js';
import type { RunStats } from './stats.js';
import { usageSummary } from './usage-text.js';

export function formatTextReport(stats: RunStats, title: string): string {
  const lines: string[] = [`chatbatch report: ${title}`, ''];
  lines.push(
    `${countedAs(stats)}  ok: ${stats.succeeded}  failed: ${stats.failed}  pending: ${stats.pending ?? 'unknown'}` +
      (stats.cached ? `  (cached: ${stats.cached})` : ''),
  );
  const pendingNote = describePending(stats.pending, pendingUnit(stats));
  if (pendingNote) lines.push(pendingNote);
  lines.push(
    stats.usage
      ? `tokens: ${usageSummary(stats.usage)}, over every session (as the endpoint reported them)`
      : 'tokens: not recorded (the manifest was written before chatbatch kept usage)',
  );
  lines.push(`cost: ${costText(stats.cost)}, over every session`);
  if (stats.damagedLines > 0) lines.push(`${stats.damagedLines} line(s) of the records files are not records (torn or edited): skipped`);
  lines.push('', 'replies:', ...datasetLines(stats.dataset, stats.grading).map((line) => `  ${line}`));
  if (stats.models) lines.push('', ...modelComparisonLines(stats.models));
  const evaluation = stats.evaluation ? evaluationLines(stats.evaluation) : [];
  if (evaluation.length > 0) lines.push('', ...evaluation);
  if (stats.confusion) lines.push('', ...confusionLines(stats.confusion));
  const least = leastConsistentLines(stats.dataset);
  if (least.length > 0) lines.push('', 'least consistent rows:', ...least.map((line) => `  ${line}`));
  lines.push('', 'by status:', ...table(stats.byStatus));
  if (stats.failed > 0) {
    lines.push('', 'failures by category:', ...table(stats.byCategory));
    lines.push('', 'failures by code:', ...table(stats.byCode));
  }
  if (stats.latency) {
    const l = stats.latency;
    lines.push('', `latency (ms, first attempt to final answer): p50 ${l.p50}  p90 ${l.p90}  p95 ${l.p95}  p99 ${l.p99}  max ${l.max}`);
  }
  lines.push('', 'attempts per row:', ...table(stats.attempts, (a, b) => Number(a) - Number(b)));
  if (stats.throughput.buckets.length > 0) {
    lines.push('', `throughput (rows settled per ${stats.throughput.bucketSeconds} s):`);
    const peak = Math.max(1, ...stats.throughput.buckets.map((b) => b.ok + b.failed));
    for (const bucket of stats.throughput.buckets) {
      const total = bucket.ok + bucket.failed;
      lines.push(
        `  ${String(bucket.start).padStart(6)} s  ${String(total).padStart(7)}  ${'#'.repeat(Math.round((total / peak) * 40))}${bucket.failed ? `  (${bucket.failed} failed)` : ''}`,
      );
    }
  }
  if (stats.slowest.length > 0) {
    lines.push('', 'slowest rows:');
    for (const row of stats.slowest)
      lines.push(`  ${row.id}  ${row.duration_ms} ms  ${row.attempts} attempt(s)  trace ${row.trace_id ?? '-'}`);
  }
  if (stats.topErrors.length > 0) {
    lines.push('', 'most common errors (with an example):');
    for (const group of stats.topErrors) {
      lines.push(
        `  ${group.count} × status ${group.status ?? '-'} ${group.code ?? '-'}: e.g. row ${group.example.id}, trace ${group.example.trace_id ?? '-'}${group.example.message ? ` — ${group.example.message.slice(0, 120)}` : ''}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** With samples, ok, failed and pending count samples: the line says so, and how many rows. */
export function countedAs(stats: Pick<RunStats, 'rows' | 'repeat' | 'pending' | 'models'>): string {
  if (stats.models) return recordsOfModels(stats, stats.models.models.length);
  if (stats.repeat <= 1) return `rows: ${stats.rows}`;
  const rows = stats.pending === null ? '' : `${stats.rows / stats.repeat} rows × `;
  return `samples: ${stats.rows} (${rows}${stats.repeat} per row)`;
}

function table(counts: Record<string, number>, order?: (a: string, b: string) => number): string[] {
  const entries = Object.entries(counts).sort(order ? ([a], [b]) => order(a, b) : ([, a], [, b]) => b - a);
  return entries.map(([key, count]) => `  ${key.padEnd(24)} ${count}`);
}

/** With several models, ok, failed and pending count records (one per row, model and sample). */
function recordsOfModels(stats: Pick<RunStats, 'rows' | 'repeat' | 'pending'>, models: number): string {
  const samples = stats.repeat > 1 ? ` × ${stats.repeat} samples` : '';
  const rows = stats.rows / models / stats.repeat;
  const perRow = stats.pending === null || !Number.isInteger(rows) ? '' : ` × ${rows} rows${samples}`;
  return `records: ${stats.rows} (${models} models${perRow})`;
}
