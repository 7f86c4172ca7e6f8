import type { RunStats } from './stats.js';

/** A self-contained page: inline CSS and SVG, no scripts, nothing fetched. */
export function renderHtmlReport(stats: RunStats, title: string): string {
  const latency = stats.latency;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>chatbatch report: ${escapeHtml(title)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1000px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse}td,th{padding:3px 10px;border-bottom:1px solid #ddd;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.cards{display:flex;gap:16px}.card{border:1px solid #ddd;border-radius:6px;padding:10px 16px}
.card b{display:block;font-size:22px}
svg{border:1px solid #eee;background:#fcfcfc}
</style></head><body>
<h1>chatbatch report: ${escapeHtml(title)}</h1>
<div class="cards">
<div class="card"><b>${stats.rows}</b>rows</div>
<div class="card"><b style="color:#2a7">${stats.succeeded}</b>succeeded</div>
<div class="card"><b style="color:#c33">${stats.failed}</b>failed</div>
${latency ? `<div class="card"><b>${latency.p50} ms</b>p50 latency</div><div class="card"><b>${latency.p99} ms</b>p99 latency</div>` : ''}
</div>
<h2>Latency over time</h2>
${latencyChart(stats)}
<h2>Rows settled over time (per ${stats.throughput.bucketSeconds} s)</h2>
${throughputChart(stats)}
<h2>Status</h2>${countTable(stats.byStatus, 'status')}
${stats.failed ? `<h2>Failures by category</h2>${countTable(stats.byCategory, 'category')}<h2>Failures by code</h2>${countTable(stats.byCode, 'code')}` : ''}
${latency ? `<h2>Latency percentiles (ms)</h2><table><tr><th>p50</th><th>p90</th><th>p95</th><th>p99</th><th>max</th></tr><tr>${[latency.p50, latency.p90, latency.p95, latency.p99, latency.max].map((v) => `<td class="n">${v}</td>`).join('')}</tr></table>` : ''}
<h2>Attempts per row</h2>${countTable(stats.attempts, 'attempts')}
${stats.topErrors.length ? `<h2>Most common errors</h2><table><tr><th>count</th><th>status</th><th>code</th><th>example row</th><th>trace id</th><th>message</th></tr>${stats.topErrors.map((g) => `<tr><td class="n">${g.count}</td><td>${g.status ?? '-'}</td><td>${escapeHtml(g.code ?? '-')}</td><td>${escapeHtml(g.example.id)}</td><td>${escapeHtml(g.example.trace_id ?? '-')}</td><td>${escapeHtml((g.example.message ?? '').slice(0, 160))}</td></tr>`).join('')}</table>` : ''}
${stats.slowest.length ? `<h2>Slowest rows</h2><table><tr><th>row</th><th>ms</th><th>attempts</th><th>trace id</th></tr>${stats.slowest.map((s) => `<tr><td>${escapeHtml(s.id)}</td><td class="n">${s.duration_ms}</td><td class="n">${s.attempts}</td><td>${escapeHtml(s.trace_id ?? '-')}</td></tr>`).join('')}</table>` : ''}
</body></html>
`;
}

const W = 900;
const H = 240;
const PAD = 40;

function latencyChart(stats: RunStats): string {
  if (stats.points.length === 0) return '<p>No requests were sent.</p>';
  const maxT = Math.max(1, ...stats.points.map((p) => p.t));
  const maxD = Math.max(1, ...stats.points.map((p) => p.duration_ms));
  const dots = stats.points
    .map((p) => `<circle cx="${x(p.t, maxT)}" cy="${y(p.duration_ms, maxD)}" r="2" fill="${p.ok ? '#2a7' : '#c33'}" fill-opacity="0.6"/>`)
    .join('');
  return svg(`${axes(`${maxT.toFixed(1)} s`, `${maxD} ms`)}${dots}`, 'Each dot is a row: when it started (x) and how long it took (y); red ones failed.');
}

function throughputChart(stats: RunStats): string {
  const buckets = stats.throughput.buckets;
  if (buckets.length === 0) return '<p>No requests were sent.</p>';
  const peak = Math.max(1, ...buckets.map((b) => b.ok + b.failed));
  const width = (W - 2 * PAD) / buckets.length;
  const bars = buckets
    .map((b, i) => {
      const okHeight = ((H - 2 * PAD) * b.ok) / peak;
      const failedHeight = ((H - 2 * PAD) * b.failed) / peak;
      const left = PAD + i * width;
      return `<rect x="${left}" y="${H - PAD - okHeight}" width="${Math.max(1, width - 1)}" height="${okHeight}" fill="#2a7"/>` +
        `<rect x="${left}" y="${H - PAD - okHeight - failedHeight}" width="${Math.max(1, width - 1)}" height="${failedHeight}" fill="#c33"/>`;
    })
    .join('');
  return svg(`${axes(`${buckets.length * stats.throughput.bucketSeconds} s`, `${peak} rows`)}${bars}`, 'Rows settled per interval: green succeeded, red failed.');
}

function axes(xLabel: string, yLabel: string): string {
  return `<line x1="${PAD}" y1="${H - PAD}" x2="${W - PAD}" y2="${H - PAD}" stroke="#888"/>` +
    `<line x1="${PAD}" y1="${PAD}" x2="${PAD}" y2="${H - PAD}" stroke="#888"/>` +
    `<text x="${W - PAD}" y="${H - PAD + 16}" text-anchor="end" font-size="11">${escapeHtml(xLabel)}</text>` +
    `<text x="${PAD - 4}" y="${PAD - 6}" font-size="11">${escapeHtml(yLabel)}</text>` +
    `<text x="${PAD}" y="${H - PAD + 16}" font-size="11">0</text>`;
}

function svg(body: string, caption: string): string {
  return `<figure><svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeHtml(caption)}">${body}</svg><figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}

function x(t: number, maxT: number): number {
  return Math.round(PAD + ((W - 2 * PAD) * t) / maxT);
}

function y(value: number, max: number): number {
  return Math.round(H - PAD - ((H - 2 * PAD) * value) / max);
}

function countTable(counts: Record<string, number>, label: string): string {
  const rows = Object.entries(counts).sort(([, a], [, b]) => b - a);
  return `<table><tr><th>${label}</th><th>rows</th></tr>${rows.map(([key, count]) => `<tr><td>${escapeHtml(key)}</td><td class="n">${count}</td></tr>`).join('')}</table>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
