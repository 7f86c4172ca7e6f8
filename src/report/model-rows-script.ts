import { ROWS_VIEW_SHARED } from './rows-view-script.js';

/**
 * The rows view's script for a run of several models, inlined in the page (no network): one
 * table row per input row (and sample), one column per model with its reply or failure and a
 * mark when it was judged (--expect). Like the single-model script (rows-script.ts) it reads the
 * rows from the page's JSON data element, shows 100 at a time, and puts every value in place as
 * text (textContent), never as markup.
 */
export const MODEL_ROWS_SCRIPT = `(() => {
  const PAGE = 100;
  const data = JSON.parse(document.getElementById('rows-data').textContent);
  const rows = data.rows;
  const $ = (id) => document.getElementById(id);
  const body = $('rows-body');
  const samples = rows.some((row) => row.s !== undefined);
  let shown = rows;
  let page = 0;
${ROWS_VIEW_SHARED}  const columns = 2 + (samples ? 1 : 0) + (refs ? 1 : 0) + data.models.length;
  const present = (row) => row.ms.filter((m) => m !== null);
  const some = (row, test) => row.ms.some((m) => m !== null && test(m));
  const answer = (m) => m.a !== undefined ? m.a : m.d !== null ? m.d : (m.r === null ? '' : m.r);
  const mark = (m) => m.c === true ? '\\u2713 ' : m.c === false ? '\\u2717 ' : '';
  const cellText = (m) => m === null ? '(no record)' : m.ok ? mark(m) + answer(m) : 'failed (' + (m.cat || m.code) + ')';
  const cellClass = (m) => 'cut ' + (m === null ? 'none' : !m.ok ? 'failed' : m.c === true ? 'right' : m.c === false ? 'wrong' : 'ok');
  const text = (row) => row.hay || (row.hay = [row.id, row.in ? Object.values(row.in).join(' ') : '', ...present(row).map((m) => [m.msg, m.r, m.d, m.code, m.cat, m.tr].join(' '))].join(' ').toLowerCase());
  const fill = (select, values) => { for (const v of [...new Set(values)].filter((v) => v !== null).sort()) select.append(el('option', v)); };
  fill($('f-category'), rows.flatMap((row) => present(row).map((m) => m.cat)));
  fill($('f-finish'), rows.flatMap((row) => present(row).map((m) => m.fr)));
  if (!rows.some((row) => some(row, (m) => m.ag !== undefined))) $('f-disagree-label').hidden = true;
  if (!rows.some((row) => some(row, (m) => m.c !== undefined))) $('f-wrong-label').hidden = true;
  function matches(row, f) {
    if (f.o === 'ok' && some(row, (m) => !m.ok)) return false;
    if (f.o === 'failed' && !some(row, (m) => !m.ok)) return false;
    if (f.c && !some(row, (m) => m.cat === f.c)) return false;
    if (f.f && !some(row, (m) => m.fr === f.f)) return false;
    if (f.models && row.dis !== true) return false;
    if (f.samples && !some(row, (m) => m.ag < 1)) return false;
    if (f.w && !wrongAs(row, f.w)) return false;
    return !f.q || text(row).includes(f.q);
  }
  // "wrong": any model judged wrong, every model wrong, or only the model at index k wrong (the others right).
  function wrongAs(row, w) {
    if (w === 'any') return some(row, (m) => m.c === false);
    if (w === 'all') return row.ms.every((m) => m !== null && m.c === false);
    const k = Number(w.slice('only:'.length));
    return row.ms.every((m, i) => m !== null && m.c === (i === k ? false : true));
  }
  function apply() {
    const f = { q: $('f-search').value.trim().toLowerCase(), o: $('f-outcome').value, c: $('f-category').value, f: $('f-finish').value, models: $('f-models').checked, samples: $('f-disagree').checked, w: $('f-wrong').value };
    shown = rows.filter((row) => matches(row, f));
    page = 0;
    render();
  }
  function modelDetail(name, m) {
    const box = el('div', null, 'model');
    box.append(el('h3', name));
    if (m === null) { box.append(el('p', 'no record (pending)')); return box; }
    const dl = el('dl');
    recordFields(definitions(dl), m);
    box.append(dl);
    return box;
  }
  function detail(row) {
    const tr = el('tr', null, 'detail');
    const td = el('td');
    td.colSpan = columns;
    const dl = el('dl');
    const add = definitions(dl);
    rowFields(add, row);
    if (row.dis !== undefined) add('models', row.dis ? 'disagree' : 'agree');
    const side = el('div', null, 'side');
    data.models.forEach((name, i) => side.append(modelDetail(name, row.ms[i])));
    td.append(dl, side);
    tr.append(td);
    return tr;
  }
  function render() {
    body.replaceChildren();
    const { pages, rows: onPage } = currentPage();
    for (const row of onPage) {
      const tr = el('tr', null, 'row' + (row.dis ? ' disagree' : ''));
      const input = inputText(row);
      tr.append(el('td', row.id));
      if (samples) tr.append(el('td', row.s === undefined ? '' : row.s));
      tr.append(el('td', input.slice(0, 200), 'cut'));
      if (refs) tr.append(el('td', row.ref === undefined ? '' : row.ref.slice(0, 200), 'cut ref'));
      for (const m of row.ms) tr.append(el('td', cellText(m).slice(0, 200), cellClass(m)));
      clickable(tr, row);
      body.append(tr);
    }
    pageWords(pages);
  }
  wire(['f-outcome', 'f-category', 'f-finish', 'f-models', 'f-disagree', 'f-wrong']);
})();`;
