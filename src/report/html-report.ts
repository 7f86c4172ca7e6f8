import { USAGE_CAVEAT } from '../output/usage-totals.js';
import { describePending } from './pending.js';
import type { RunStats } from './stats.js';
import { type Axis, chartFrame, escapeXml, heightOf, niceAxis, xOf, yOf } from './svg-chart.js';
import { formatTokens, usageSummary } from './usage-text.js';

/** A self-contained page: inline CSS and SVG, no scripts, nothing fetched. */
export function renderHtmlReport(stats: RunStats, title: string): string {
  const latency = stats.latency;
  const pendingNote = describePending(stats.pending, stats.repeat > 1 ? 'sample' : 'row');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>chatbatch report: ${escapeXml(title)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1000px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse}td,th{padding:3px 10px;border-bottom:1px solid #ddd;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.cards{display:flex;gap:16px}.card{border:1px solid #ddd;border-radius:6px;padding:10px 16px}
.card b{display:block;font-size:22px}
svg{border:1px solid #eee;background:#fcfcfc}
svg text{font:11px system-ui,sans-serif;fill:#444}svg text.title{font-size:12px;fill:#222}svg text.legend{font-size:12px;fill:#222}svg text.guide{fill:#555}
figure{margin:8px 0}figcaption{color:#555;font-size:13px;margin-top:4px}
</style></head><body>
<h1>chatbatch report: ${escapeXml(title)}</h1>
<div class="cards">
<div class="card"><b>${stats.rows}</b>${stats.repeat > 1 ? `samples (${stats.repeat} per row)` : 'rows'}</div>
<div class="card"><b style="color:#2a7">${stats.succeeded}</b>succeeded</div>
<div class="card"><b style="color:#c33">${stats.failed}</b>failed</div>
<div class="card"><b>${stats.pending ?? 'unknown'}</b>pending</div>
${stats.usage ? `<div class="card"><b>${formatTokens(stats.usage.total_tokens)}</b>tokens</div>` : ''}
${latency ? `<div class="card"><b>${latency.p50} ms</b>p50 latency</div><div class="card"><b>${latency.p99} ms</b>p99 latency</div>` : ''}
</div>
${pendingNote === null ? '' : `<p>${escapeXml(pendingNote)}</p>`}
<p>${stats.usage ? `Tokens: ${escapeXml(usageSummary(stats.usage))}, over every session; ${escapeXml(USAGE_CAVEAT)}.` : 'Tokens: not recorded (the manifest was written before chatbatch kept usage).'}</p>
<h2>Latency over time</h2>
${latencyChart(stats)}
<h2>Rows settled over time (per ${stats.throughput.bucketSeconds} s)</h2>
${throughputChart(stats)}
<h2>Status</h2>${countTable(stats.byStatus, 'status')}
${stats.failed ? `<h2>Failures by category</h2>${countTable(stats.byCategory, 'category')}<h2>Failures by code</h2>${countTable(stats.byCode, 'code')}` : ''}
${latency ? `<h2>Latency percentiles (ms)</h2><table><tr><th>p50</th><th>p90</th><th>p95</th><th>p99</th><th>max</th></tr><tr>${[latency.p50, latency.p90, latency.p95, latency.p99, latency.max].map((v) => `<td class="n">${v}</td>`).join('')}</tr></table>` : ''}
<h2>Attempts per row</h2>${countTable(stats.attempts, 'attempts')}
${stats.topErrors.length ? `<h2>Most common errors</h2><table><tr><th>count</th><th>status</th><th>code</th><th>example row</th><th>trace id</th><th>message</th></tr>${stats.topErrors.map((g) => `<tr><td class="n">${g.count}</td><td>${g.status ?? '-'}</td><td>${escapeXml(g.code ?? '-')}</td><td>${escapeXml(g.example.id)}</td><td>${escapeXml(g.example.trace_id ?? '-')}</td><td>${escapeXml((g.example.message ?? '').slice(0, 160))}</td></tr>`).join('')}</table>` : ''}
${stats.slowest.length ? `<h2>Slowest rows</h2><table><tr><th>row</th><th>ms</th><th>attempts</th><th>trace id</th></tr>${stats.slowest.map((s) => `<tr><td>${escapeXml(s.id)}</td><td class="n">${s.duration_ms}</td><td class="n">${s.attempts}</td><td>${escapeXml(s.trace_id ?? '-')}</td></tr>`).join('')}</table>` : ''}
</body></html>
`;
}

const GREEN = '#2a7';
const AMBER = '#e69500';
const RED = '#c33';

/** One time axis for both charts, in seconds, minutes or hours as the run's length suits. */
function timeAxis(stats: RunStats): { axis: Axis; unit: number } {
  const { bucketSeconds, buckets } = stats.throughput;
  let seconds = buckets.length * bucketSeconds;
  for (const point of stats.points) seconds = Math.max(seconds, point.t + point.duration_ms / 1000);
  const [unit, name] = seconds > 7200 ? [3600, 'h'] : seconds > 120 ? [60, 'min'] : [1, 's'];
  return { axis: niceAxis(seconds / unit, `time since the first request started (${name})`, (v) => `${v} ${name}`), unit };
}

function latencyChart(stats: RunStats): string {
  if (stats.points.length === 0) return '<p>No requests were sent.</p>';
  const { axis: x, unit } = timeAxis(stats);
  let maxD = 1;
  for (const point of stats.points) maxD = Math.max(maxD, point.duration_ms);
  const y = niceAxis(maxD, 'latency (ms), first attempt to final answer', (v) => v.toLocaleString('en-US'));
  const colorOf = (p: RunStats['points'][number]): string => (!p.ok ? RED : p.attempts > 1 ? AMBER : GREEN);
  // Failed and retried rows are drawn last so the many first-try successes cannot hide them.
  const rank = (p: RunStats['points'][number]): number => (!p.ok ? 2 : p.attempts > 1 ? 1 : 0);
  const dots = [...stats.points]
    .sort((a, b) => rank(a) - rank(b))
    .map((p) => `<circle cx="${xOf(p.t / unit, x)}" cy="${yOf(p.duration_ms, y)}" r="2.5" fill="${colorOf(p)}" fill-opacity="0.7"/>`)
    .join('');
  const latency = stats.latency;
  const guides = latency
    ? (
        [
          ['p50', latency.p50],
          ['p95', latency.p95],
        ] as const
      )
        .map(
          ([name, value]) =>
            `<line x1="${xOf(0, x)}" y1="${yOf(value, y)}" x2="${xOf(x.max, x)}" y2="${yOf(value, y)}" stroke="#555" stroke-dasharray="4 3"/>` +
            `<text x="${xOf(x.max, x) - 4}" y="${yOf(value, y) - 4}" text-anchor="end" class="guide">${name} ${value} ms</text>`,
        )
        .join('')
    : '';
  return chartFrame(
    x,
    y,
    dots + guides,
    [
      { color: GREEN, label: 'ok, first attempt' },
      { color: AMBER, label: 'ok after retries' },
      { color: RED, label: 'failed' },
    ],
    'Each dot is a row: when its first attempt started (x) and how long it took until its final answer, retries included (y). Dashed lines: p50 and p95.',
  );
}

function throughputChart(stats: RunStats): string {
  const { buckets, bucketSeconds } = stats.throughput;
  if (buckets.length === 0) return '<p>No requests were sent.</p>';
  const { axis: x, unit } = timeAxis(stats);
  let peak = 1;
  for (const b of buckets) peak = Math.max(peak, b.ok + b.failed);
  const y = niceAxis(peak, `rows settled per ${bucketSeconds} s`, (v) => v.toLocaleString('en-US'));
  const bars = buckets
    .map((b) => {
      const left = xOf(b.start / unit, x);
      const width = Math.max(1, xOf((b.start + bucketSeconds) / unit, x) - left - 1);
      const okTop = yOf(b.ok, y);
      const failedTop = yOf(b.ok + b.failed, y);
      const title = `<title>${b.start}–${b.start + bucketSeconds} s: ${b.ok} ok, ${b.failed} failed</title>`;
      return (
        `<g>${title}<rect x="${left}" y="${okTop}" width="${width}" height="${heightOf(b.ok, y)}" fill="${GREEN}"/>` +
        `<rect x="${left}" y="${failedTop}" width="${width}" height="${heightOf(b.failed, y)}" fill="${RED}"/></g>`
      );
    })
    .join('');
  return chartFrame(
    x,
    y,
    bars,
    [
      { color: GREEN, label: 'succeeded' },
      { color: RED, label: 'failed' },
    ],
    `Rows settled in each ${bucketSeconds} s interval, by outcome, on the same time axis as the chart above.`,
  );
}

function countTable(counts: Record<string, number>, label: string): string {
  const rows = Object.entries(counts).sort(([, a], [, b]) => b - a);
  return `<table><tr><th>${label}</th><th>rows</th></tr>${rows.map(([key, count]) => `<tr><td>${escapeXml(key)}</td><td class="n">${count}</td></tr>`).join('')}</table>`;
}
