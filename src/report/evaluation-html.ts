import type { EvaluationSummary } from './evaluation-stats.js';
import { judgeHeading, judgeLine, pairLine, pairsHeading, pValue, sampleScoresLine } from './evaluation-text.js';
import type { GroupAccuracy } from './group-accuracy.js';
import { groupCells, groupNote } from './group-text.js';
import { type Html, html } from './html.js';

const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;
const points = (share: number): string => `${share >= 0 ? '+' : '−'}${Math.abs(share * 100).toFixed(1)}`;

/**
 * The page's evaluation section, near its top: each pair of models compared on the same rows (a
 * verdict a person reads first, then the figures), and with `--repeat` the majority answer and
 * pass@k. Empty when there is nothing to say.
 */
export function evaluationSection(summary: EvaluationSummary | undefined): Html | string {
  if (!summary || (summary.pairs.length === 0 && !summary.samples && !summary.groups && !summary.judge)) return '';
  return html`<h2>Which model is right more often</h2>
<style>#paired-comparison td.n{white-space:nowrap}#paired-comparison tr.apart td:first-child{color:#2a7}#paired-comparison tr.same td:first-child{color:#555}</style>
${summary.judge ? html`<p>${capitalised(judgeHeading(summary.judge))}</p><ul id="judge-verdicts">${summary.judge.byModel.map((counts) => html`<li>${judgeLine(counts)}</li>`)}</ul>` : ''}
${summary.pairs.length > 0 ? pairsTable(summary) : ''}
${summary.groups ? groupsTable(summary.groups) : ''}
${summary.samples ? html`<p>With --repeat ${summary.repeat}: the majority answer per row, and pass@k:</p><ul id="sample-scores">${summary.samples.map((scores) => html`<li>${sampleScoresLine(scores)}</li>`)}</ul>` : ''}`;
}

function groupsTable(groups: GroupAccuracy): Html {
  const [heading, ...rows] = groupCells(groups);
  return html`<p>${capitalised(groupNote(groups).replace(/:$/, '.'))}</p>
<table id="groups-table"><tr>${heading!.map((cell) => html`<th>${cell}</th>`)}</tr>
${rows.map((row) => html`<tr>${row.map((cell, column) => html`<td class="${column === 0 ? '' : 'n'}">${cell}</td>`)}</tr>`)}</table>`;
}

function pairsTable(summary: EvaluationSummary): Html {
  return html`<table id="paired-comparison"><tr><th>verdict</th><th>A</th><th>B</th><th>difference, A − B (95% CI)</th><th>p</th><th>rows judged by both</th><th>only A right</th><th>only B right</th></tr>
${summary.pairs.map((pair) => {
  const { both, onlyA, onlyB } = pair.table;
  const verdict = pair.rows === 0 ? 'no row judged for both' : pair.apart ? `${pair.a} is right more often` : 'not told apart';
  return html`<tr class="${pair.apart ? 'apart' : 'same'}" title="${pairLine(pair)}"><td><b>${verdict}</b></td><td>${pair.a} ${pair.rows ? percent((both + onlyA) / pair.rows) : ''}</td><td>${pair.b} ${pair.rows ? percent((both + onlyB) / pair.rows) : ''}</td><td class="n">${pair.rows ? `${points(pair.difference)} points (${points(pair.low)} to ${points(pair.high)})` : '-'}</td><td class="n">${pair.rows ? pValue(pair.p) : '-'}</td><td class="n">${pair.rows}</td><td class="n">${onlyA}</td><td class="n">${onlyB}</td></tr>`;
})}</table>
<p>${capitalised(pairsHeading(summary).replace(/:$/, '.'))} Not told apart means these rows cannot say which model is better: more rows, or a larger difference, would be needed. The p-values are not adjusted for the number of pairs compared.</p>`;
}

/** A sentence of the text report's words, for the page: its first letter capitalised. */
export function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
