import { type Column, formatTable, num } from './table.js';

export interface Spread {
  min: number;
  median: number;
  max: number;
  /** How many values it is over. */
  n: number;
}

/** Min, median (the mean of the middle two for an even count) and max; null when there is no value. */
export function spread(values: readonly number[]): Spread | null {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return null;
  const middle = Math.floor(n / 2);
  const at = (i: number): number => sorted[i] ?? Number.NaN;
  const median = n % 2 === 1 ? at(middle) : (at(middle - 1) + at(middle)) / 2;
  return { min: at(0), median, max: at(n - 1), n };
}

/** A bound on chatbatch / baseline: `atLeast` for what should be high, `atMost` for costs. */
export interface Target {
  kind: 'atLeast' | 'atMost';
  bound: number;
  /** What we aim at, tighter than the bound (shown, not judged). */
  aim?: number;
}

export function meets(target: Target, ratio: number): boolean {
  return target.kind === 'atLeast' ? ratio >= target.bound : ratio <= target.bound;
}

export function describeTarget(target: Target | null): string {
  if (!target) return '-';
  const text = `${target.kind === 'atLeast' ? '≥' : '≤'} ${num(target.bound, 2)}×`;
  return target.aim === undefined ? text : `${text} (aim ${num(target.aim, 2)}×)`;
}

/** One metric at one point: chatbatch / baseline in each round where both were measured. */
export interface RatioRow {
  metric: string;
  point: string;
  ratios: number[];
  target: Target | null;
}

export interface RatioSummary {
  metric: string;
  point: string;
  ratios: number[];
  spread: Spread | null;
  target: Target | null;
  /** The median meets the target (null: no target, or no round measured). */
  met: boolean | null;
  roundsMet: number | null;
}

export function summarize(row: RatioRow): RatioSummary {
  const s = spread(row.ratios);
  const target = row.target;
  const met = target && s ? meets(target, s.median) : null;
  const roundsMet = target && s ? row.ratios.filter((r) => meets(target, r)).length : null;
  return { metric: row.metric, point: row.point, ratios: row.ratios, spread: s, target: row.target, met, roundsMet };
}

function verdict(summary: RatioSummary): string {
  if (!summary.target) return '';
  if (summary.met === null || !summary.spread) return 'not measured';
  return `${summary.met ? 'yes' : 'NO'} (${summary.roundsMet}/${summary.spread.n} rounds)`;
}

const ratio = (value: number | undefined): string => (value === undefined ? '-' : `${num(value, 2)}×`);

const columns: Column<RatioSummary>[] = [
  { header: 'metric (chatbatch / baseline)', value: (s) => s.metric, align: 'left' },
  { header: 'point', value: (s) => s.point, align: 'left' },
  { header: 'min', value: (s) => ratio(s.spread?.min) },
  { header: 'median', value: (s) => ratio(s.spread?.median) },
  { header: 'max', value: (s) => ratio(s.spread?.max) },
  { header: 'target', value: (s) => describeTarget(s.target), align: 'left' },
  { header: 'met (median)', value: verdict, align: 'left' },
];

export function formatRatioTable(summaries: RatioSummary[]): string {
  return formatTable(columns, summaries);
}
