import { COST_CAVEAT } from '../cost/cost-summary.js';
import { share } from './dataset-text.js';
import { capitalised } from './evaluation-html.js';
import { type Html, html, jsonScript, trustedHtml } from './html.js';
import { MAX_PAIRWISE_MODELS, type ModelAgreement } from './model-agreement.js';
import type { ModelComparison } from './model-comparison.js';
import type { ModelRowsView } from './model-rows.js';
import { MODEL_ROWS_SCRIPT } from './model-rows-script.js';
import { commonRowsNote, modelColumns, tokensNote } from './model-text.js';

const STYLE = `
#models-table td:first-child{font-weight:600}
#rows-table td.right{color:#2a7}#rows-table td.wrong{color:#c33}#rows-table td.failed{color:#c33;font-style:italic}#rows-table td.none{color:#999}
#rows-table tr.disagree td:first-child{box-shadow:inset 3px 0 #e69500}
tr.detail .side{display:flex;gap:12px}tr.detail .side .model{flex:1;min-width:0;border-left:3px solid #ddd;padding-left:8px}
tr.detail h3{font-size:14px;margin:4px 0}
`;

/** The per-model table and the agreement between the models, for the page's top. */
export function modelComparisonSection(comparison: ModelComparison): Html {
  const columns = modelColumns(comparison);
  return html`<h2>Models</h2>
<table id="models-table"><tr>${columns.map((column) => html`<th>${column.heading}</th>`)}</tr>
${comparison.models.map((line) => html`<tr>${columns.map((column, i) => html`<td class="${i === 0 ? '' : 'n'}">${column.cell(line)}</td>`)}</tr>`)}</table>
${comparison.common ? html`<p id="models-common"><b>Note:</b> ${commonRowsNote({ ...comparison, common: comparison.common })}.</p>` : ''}
<p>Correct: against the reference (--expect), with its 95% Wilson interval. Refused: category refused. Length: finish_reason length. Latency: first attempt to final answer. ${capitalised(tokensNote(comparison.models))}. ${comparison.models.some((line) => line.usd !== undefined) ? `Cost: ${COST_CAVEAT}.` : ''}</p>
<h2>Agreement between models</h2>
${agreementText(comparison.agreement)}
${pairMatrix(comparison)}`;
}

function agreementText(agreement: ModelAgreement): Html {
  if (agreement.rows === 0) return html`<p id="models-agreement">No row has replies from two models to compare.</p>`;
  const disagreeing = agreement.rows - agreement.unanimous;
  return html`<p id="models-agreement">Every model that replied gives the same answer on <b>${share(agreement.unanimous, agreement.rows)}</b> of the rows two or more models answered (the reply trimmed, case ignored; with --reply-format json, <code>data</code> by value, its --expect field when it has one).
${disagreeing > 0 ? `The ${disagreeing} row(s) where the models disagree come first in the rows view below; "models disagree" shows only them.` : ''}</p>`;
}

/**
 * Each pair's agreement as a matrix: the share of the rows both models answered where they
 * agree. Past MAX_PAIRWISE_MODELS models (a matrix of a million cells), the pairs summed up and
 * each model's agreement with the others in the table above.
 */
function pairMatrix(comparison: ModelComparison): Html {
  const { agreement } = comparison;
  const names = comparison.models.map((line) => line.model);
  if (agreement.withOthers != null) {
    const pairs = ((names.length * (names.length - 1)) / 2).toLocaleString('en-US');
    return html`<p id="models-pairs">${names.length} models make ${pairs} pairs, shown one by one up to ${MAX_PAIRWISE_MODELS} models. ${
      (agreement.overall?.rows ?? 0) === 0
        ? 'No two models answered the same row.'
        : `Over every pair, two models agree on ${share(agreement.overall!.same, agreement.overall!.rows)} of the rows both answered; each model's agreement with the others is the table's column "agrees with the others".`
    }</p>`;
  }
  const byPair = new Map(agreement.pairs.map((pair) => [JSON.stringify([pair.a, pair.b]), pair]));
  const cell = (a: string, b: string): string => {
    if (a === b) return '—';
    const pair = byPair.get(JSON.stringify([a, b])) ?? byPair.get(JSON.stringify([b, a]));
    return pair === undefined || pair.rows === 0 ? '-' : share(pair.same, pair.rows);
  };
  return html`<table id="models-pairs"><tr><th>pairwise agreement</th>${names.map((name) => html`<th>${name}</th>`)}</tr>
${names.map((a) => html`<tr><th>${a}</th>${names.map((b) => html`<td class="n">${cell(a, b)}</td>`)}</tr>`)}</table>`;
}

/** The rows view of a multi-model run: a row's models side by side, filters by outcome, category, agreement and correctness. */
export function modelRowsSection(view: ModelRowsView, cutNote: string): Html | string {
  if (view.rows.length === 0) return '';
  const samples = view.rows.some((row) => row.s !== undefined);
  const refs = view.rows.some((row) => row.ref !== undefined);
  const width = Math.floor((refs ? 62 : 70) / view.models.length);
  return html`<h2>Rows</h2>
<style>${trustedHtml(STYLE)}</style>
<div class="controls">
<input type="search" id="f-search" placeholder="Search ids, inputs, replies, messages" aria-label="search rows">
<select id="f-outcome" aria-label="outcome"><option value="">every outcome</option><option value="ok">every model ok</option><option value="failed">a model failed</option></select>
<select id="f-category" aria-label="failure category"><option value="">every category</option></select>
<select id="f-finish" aria-label="finish reason"><option value="">every finish_reason</option></select>
<label id="f-models-label"><input type="checkbox" id="f-models"> models disagree</label>
<label id="f-disagree-label"><input type="checkbox" id="f-disagree"> samples disagree</label>
<label id="f-wrong-label">wrong (--expect): <select id="f-wrong" aria-label="wrong against the reference"><option value="">right or wrong</option><option value="any">any model wrong</option><option value="all">every model wrong</option>${view.models.map((model, index) => html`<option value="only:${index}">only ${model} wrong</option>`)}</select></label>
<span id="rows-count"></span>
</div>
<table id="rows-table"><colgroup><col style="width:10%">${samples ? html`<col style="width:5%">` : ''}<col style="width:${samples ? 15 : 20}%">${refs ? html`<col style="width:8%">` : ''}${view.models.map(() => html`<col style="width:${width}%">`)}</colgroup>
<thead><tr><th>id</th>${samples ? html`<th>sample</th>` : ''}<th>input</th>${refs ? html`<th>reference</th>` : ''}${view.models.map((model) => html`<th>${model}</th>`)}</tr></thead><tbody id="rows-body"></tbody></table>
<p><button id="rows-prev" type="button">previous</button> <span id="rows-page"></span> <button id="rows-next" type="button">next</button> (click a row to open it: every model's record side by side; ✓ right, ✗ wrong against the reference; rows where the models disagree first)${cutNote}</p>
${jsonScript('rows-data', view)}
<script>${trustedHtml(MODEL_ROWS_SCRIPT)}</script>`;
}
