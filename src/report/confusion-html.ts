import { type Confusion, OTHER } from './confusion.js';
import { classScores } from './confusion-text.js';
import { type Html, html } from './html.js';

/** Most models whose matrices the page shows; `report --json` has every one. */
const MAX_PAGE_MODELS = 12;

const percent = ([part, whole]: [number, number]): string => (whole === 0 ? '-' : `${((part / whole) * 100).toFixed(1)}%`);

/** Each model's confusion matrix as a table: a row per reference answer, a column per answer given, recall and precision. */
export function confusionSection(confusion: Confusion | undefined): Html | string {
  if (!confusion) return '';
  const shown = confusion.byModel.slice(0, MAX_PAGE_MODELS);
  const more = confusion.byModel.length - shown.length;
  return html`<h2>Confusion matrix</h2>
<p>--expect ${confusion.field}: a row per reference answer, a column per answer given, over the judged replies whose record keeps the reference. Recall: of a class's rows, those answered right; precision: of the answers naming a class, those right.${more > 0 ? ` ${more} more models: report --json has every matrix.` : ''}</p>
${shown.map((matrix) => {
  const scores = classScores(matrix, confusion.classes.length);
  return html`${confusion.byModel.length > 1 ? html`<h3>${matrix.model}</h3>` : ''}<table class="confusion"><tr><th>reference \\ answer</th>${[...confusion.classes, OTHER].map((name) => html`<th>${name}</th>`)}<th>recall</th></tr>
${confusion.classes.map((name, i) => html`<tr><th>${name}</th>${matrix.counts[i]!.map((count, j) => html`<td class="n${i === j ? ' diagonal' : ''}">${count}</td>`)}<td class="n">${percent(scores[i]!.recall)}</td></tr>`)}
<tr><th>precision</th>${scores.map((score) => html`<td class="n">${percent(score.precision)}</td>`)}</tr></table>`;
})}`;
}
