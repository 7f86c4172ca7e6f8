import { COST_CAVEAT, costText, formatUsd } from '../cost/cost-summary.js';
import { USAGE_CAVEAT } from '../record/usage-totals.js';
import { confusionSection } from './confusion-html.js';
import { datasetLines } from './dataset-text.js';
import { evaluationSection } from './evaluation-html.js';
import { type Html, html, jsonScript, trustedHtml } from './html.js';
import { modelComparisonSection, modelRowsSection } from './model-html.js';
import { describePending, pendingUnit } from './pending.js';
import { ROWS_SCRIPT } from './rows-script.js';
import { MAX_VIEW_TEXT, ROWS_VIEW_LIMITS, type RowsView } from './rows-view.js';
import type { RunStats } from './stats.js';
import { type Axis, chartFrame, heightOf, niceAxis, xOf, yOf } from './svg-chart.js';
import { formatTokens, usageSummary } from './usage-text.js';

/** How every page starts: what `report --html` recognises as its own before writing over a file. */
const PAGE_START = '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>chatbatch report: ';

/** Whether `head` (a file's first bytes) is the start of a page this module wrote. */
export function isHtmlReport(head: string): boolean {
  return head.startsWith(PAGE_START);
}

/** A self-contained page: inline CSS, SVG and script, nothing fetched; every value from a file escaped. */
export function renderHtmlReport(stats: RunStats, title: string, view: RowsView = { rows: [], leftOut: 0, textLimit: 0 }): string {
  const latency = stats.latency;
  const pendingNote = describePending(stats.pending, pendingUnit(stats));
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>chatbatch report: ${title}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<style>${trustedHtml(STYLE)}</style></head><body>
<h1>chatbatch report: ${title}</h1>
<div class="cards">
<div class="card"><b>${stats.rows}</b>${countedName(stats)}</div>
<div class="card"><b style="color:#2a7">${stats.succeeded}</b>succeeded</div>
<div class="card"><b style="color:#c33">${stats.failed}</b>failed</div>
<div class="card"><b>${stats.pending ?? 'unknown'}</b>pending</div>
${stats.usage ? html`<div class="card"><b>${formatTokens(stats.usage.total_tokens)}</b>tokens</div>` : ''}
${costCard(stats)}
${latency ? html`<div class="card"><b>${latency.p50} ms</b>p50 latency</div><div class="card"><b>${latency.p99} ms</b>p99 latency</div>` : ''}
</div>
${pendingNote === null ? '' : html`<p>${pendingNote}</p>`}
${stats.damagedLines > 0 ? html`<p>${stats.damagedLines} line(s) of the records files are not records (torn or edited): skipped.</p>` : ''}
<p>${stats.usage ? `Tokens: ${usageSummary(stats.usage)}, over every session; ${USAGE_CAVEAT}.` : 'Tokens: not recorded (the manifest was written before chatbatch kept usage).'}</p>
<p>Cost: ${costText(stats.cost)}, over every session.</p>
${evaluationSection(stats.evaluation)}
${confusionSection(stats.confusion)}
<h2>Replies</h2>
<ul>${datasetLines(stats.dataset, stats.grading).map((line) => html`<li>${line}</li>`)}</ul>
${stats.models ? modelComparisonSection(stats.models) : ''}
${leastConsistent(stats)}
${rowsSection(view)}
<h2>Latency over time</h2>
${trustedHtml(latencyChart(stats))}
<h2>Rows settled over time (per ${stats.throughput.bucketSeconds} s)</h2>
${trustedHtml(throughputChart(stats))}
<h2>Status</h2>${countTable(stats.byStatus, 'status')}
${stats.failed ? html`<h2>Failures by category</h2>${countTable(stats.byCategory, 'category')}<h2>Failures by code</h2>${countTable(stats.byCode, 'code')}` : ''}
${latency ? html`<h2>Latency percentiles (ms)</h2><table><tr><th>p50</th><th>p90</th><th>p95</th><th>p99</th><th>max</th></tr><tr>${[latency.p50, latency.p90, latency.p95, latency.p99, latency.max].map((v) => html`<td class="n">${v}</td>`)}</tr></table>` : ''}
<h2>Attempts per row</h2>${countTable(stats.attempts, 'attempts')}
${stats.topErrors.length ? html`<h2>Most common errors</h2><table><tr><th>count</th><th>status</th><th>code</th><th>example row</th><th>trace id</th><th>message</th></tr>${stats.topErrors.map((g) => html`<tr><td class="n">${g.count}</td><td>${g.status ?? '-'}</td><td>${g.code ?? '-'}</td><td>${g.example.id}</td><td>${g.example.trace_id ?? '-'}</td><td>${(g.example.message ?? '').slice(0, 160)}</td></tr>`)}</table>` : ''}
${stats.slowest.length ? html`<h2>Slowest rows</h2><table><tr><th>row</th><th>ms</th><th>attempts</th><th>trace id</th></tr>${stats.slowest.map((s) => html`<tr><td>${s.id}</td><td class="n">${s.duration_ms}</td><td class="n">${s.attempts}</td><td>${s.trace_id ?? '-'}</td></tr>`)}</table>` : ''}
</body></html>
`.text;
}

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse}td,th{padding:3px 10px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}
table.confusion td.diagonal{background:#eaf6ee;font-weight:600}
.cards{display:flex;gap:16px}.card{border:1px solid #ddd;border-radius:6px;padding:10px 16px}
.card b{display:block;font-size:22px}
svg{border:1px solid #eee;background:#fcfcfc}
svg text{font:11px system-ui,sans-serif;fill:#444}svg text.title{font-size:12px;fill:#222}svg text.legend{font-size:12px;fill:#222}svg text.guide{fill:#555}
figure{margin:8px 0}figcaption{color:#555;font-size:13px;margin-top:4px}
.controls{display:flex;gap:10px;align-items:center;flex-wrap:wrap;margin:8px 0}.controls input[type=search]{width:320px;padding:4px}
#rows-table{width:100%;table-layout:fixed}#rows-table td.cut{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
#rows-table tr.row{cursor:pointer}#rows-table tr.row:hover{background:#f4f7ff}#rows-table tr.failed td:nth-child(3){color:#c33}
tr.detail dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:4px 0}tr.detail dt{color:#555}tr.detail dd{margin:0}
tr.detail pre{margin:0;white-space:pre-wrap;word-break:break-word;font:12px/1.35 ui-monospace,monospace}
`;

/** What the first card counts: records with several models, samples with --repeat, else rows. */
function countedName(stats: RunStats): string {
  if (stats.models) return `records (${stats.models.models.length} models${stats.repeat > 1 ? `, ${stats.repeat} samples per row` : ''})`;
  return stats.repeat > 1 ? `samples (${stats.repeat} per row)` : 'rows';
}

/** The dollars as a card, marked as an estimate; nothing when the manifest has no figure. */
function costCard(stats: RunStats): Html | string {
  const usd = stats.cost?.usd;
  if (typeof usd !== 'number' || !Number.isFinite(usd)) return '';
  return html`<div class="card" title="${COST_CAVEAT}"><b>${formatUsd(usd)}</b>estimated cost</div>`;
}

function leastConsistent(stats: RunStats): Html | string {
  const least = stats.dataset.agreement?.least ?? [];
  if (least.length === 0) return '';
  return html`<h2>Least consistent rows</h2><table><tr><th>row</th><th>agreement</th><th>different answers</th><th>samples</th></tr>${least.map(
    (row) =>
      html`<tr><td>${row.id}</td><td class="n">${Math.round(row.agreement * 100)}%</td><td class="n">${row.distinct}</td><td class="n">${row.samples}</td></tr>`,
  )}</table>`;
}

/** The searchable, filterable list of every row; the rows travel as JSON the script reads. */
function rowsSection(view: RowsView): Html | string {
  const { rows } = view;
  if (view.leftOut > 0) {
    return html`<h2>Rows</h2><p>${view.leftOut} records are more than this page lists (at most ${ROWS_VIEW_LIMITS.maxRows}): the counts above include them all; read output.jsonl and errors.jsonl for each row.</p>`;
  }
  const cutNote =
    view.textLimit < MAX_VIEW_TEXT
      ? ` Texts longer than ${view.textLimit} characters are cut in this page (the record files keep them whole).`
      : '';
  const referenceNote = missingReference(view);
  if (view.byModel) return modelRowsSection(view.byModel, cutNote + referenceNote);
  if (rows.length === 0) return '';
  const refs = rows.some((row) => row.ref !== undefined);
  const answers = rows.some((row) => row.a !== undefined);
  return html`<h2>Rows</h2>
<div class="controls">
<input type="search" id="f-search" placeholder="Search ids, inputs, replies, messages" aria-label="search rows">
<select id="f-outcome" aria-label="outcome"><option value="">every outcome</option><option value="ok">ok</option><option value="failed">failed</option></select>
<select id="f-category" aria-label="failure category"><option value="">every category</option></select>
<select id="f-finish" aria-label="finish reason"><option value="">every finish_reason</option></select>
<label id="f-disagree-label"><input type="checkbox" id="f-disagree"> samples disagree</label>
<label id="f-wrong-label"><input type="checkbox" id="f-wrong"> wrong (--expect)</label>
<span id="rows-count"></span>
</div>
<table id="rows-table"><colgroup><col style="width:14%"><col style="width:5%"><col style="width:12%"><col style="width:6%"><col style="width:${refs ? 20 : 28}%">${refs ? html`<col style="width:12%">` : ''}<col style="width:${refs ? 25 : 29}%"><col style="width:6%"></colgroup>
<thead><tr><th>id</th><th>sample</th><th>outcome</th><th>status</th><th>input</th>${refs ? html`<th>reference</th>` : ''}<th>${answers ? `answer (${view.expectField})` : 'reply / data'}</th><th>attempts</th></tr></thead><tbody id="rows-body"></tbody></table>
<p><button id="rows-prev" type="button">previous</button> <span id="rows-page"></span> <button id="rows-next" type="button">next</button> (click a row to open it)${cutNote}${referenceNote}</p>
${jsonScript('rows-data', rows)}
<script>${trustedHtml(ROWS_SCRIPT)}</script>`;
}

/** With --expect but the reference's field not kept in the records: where to find it. */
function missingReference(view: RowsView): string {
  const field = view.expectField;
  if (!field) return '';
  const rows = view.byModel ? view.byModel.rows : view.rows;
  if (rows.some((row) => row.ref !== undefined)) return '';
  return ` The reference answers (--expect ${field}) are not in the records: run with --keep-input ${field} to see them beside the replies.`;
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

function countTable(counts: Record<string, number>, label: string): Html {
  const rows = Object.entries(counts).sort(([, a], [, b]) => b - a);
  return html`<table><tr><th>${label}</th><th>rows</th></tr>${rows.map(([key, count]) => html`<tr><td>${key}</td><td class="n">${count}</td></tr>`)}</table>`;
}
