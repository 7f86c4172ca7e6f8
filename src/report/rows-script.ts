import { ROWS_VIEW_SHARED } from './rows-view-script.js';

/**
 * The rows view's script, inlined in the page (no network). It reads the rows from the page's
 * JSON data element and shows one page of them at a time, so 100,000 rows cost one JSON.parse
 * and 100 table rows, not 100,000 DOM nodes. Every value reaches the page through textContent,
 * never innerHTML: a reply or an input field is text, whatever it contains.
 */
export const ROWS_SCRIPT = `(() => {
  const PAGE = 100;
  const rows = JSON.parse(document.getElementById('rows-data').textContent);
  const $ = (id) => document.getElementById(id);
  const body = $('rows-body');
  let shown = rows;
  let page = 0;
${ROWS_VIEW_SHARED}  const text = (row) => row.hay || (row.hay = [row.id, row.msg, row.r, row.d, row.code, row.cat, row.tr, row.in ? Object.values(row.in).join(' ') : ''].join(' ').toLowerCase());
  const outcome = (row) => row.ok ? 'ok' : 'failed';
  const judged = (row) => row.c === true ? ', right' : row.c === false ? ', wrong' : '';
  const answer = (row) => row.a !== undefined ? row.a : row.d !== null ? row.d : (row.r === null ? '' : row.r);
  const fill = (select, values) => { for (const v of [...new Set(values)].filter((v) => v !== null).sort()) select.append(el('option', v)); };
  fill($('f-category'), rows.map((r) => r.cat));
  fill($('f-finish'), rows.map((r) => r.fr));
  if (!rows.some((r) => r.ag !== undefined)) $('f-disagree-label').hidden = true;
  if (!rows.some((r) => r.c !== undefined)) $('f-wrong-label').hidden = true;
  function matches(row, q, o, c, f, d, w) {
    if (o && outcome(row) !== o) return false;
    if (c && row.cat !== c) return false;
    if (f && row.fr !== f) return false;
    if (d && !(row.ag < 1)) return false;
    if (w && row.c !== false) return false;
    return !q || text(row).includes(q);
  }
  function apply() {
    const q = $('f-search').value.trim().toLowerCase();
    const o = $('f-outcome').value, c = $('f-category').value, f = $('f-finish').value, d = $('f-disagree').checked, w = $('f-wrong').checked;
    shown = rows.filter((row) => matches(row, q, o, c, f, d, w));
    page = 0;
    render();
  }
  function detail(row) {
    const tr = el('tr', null, 'detail');
    const td = el('td');
    td.colSpan = refs ? 8 : 7;
    const dl = el('dl');
    const add = definitions(dl);
    rowFields(add, row);
    recordFields(add, row);
    td.append(dl);
    tr.append(td);
    return tr;
  }
  function render() {
    body.replaceChildren();
    const { pages, rows: onPage } = currentPage();
    for (const row of onPage) {
      const tr = el('tr', null, row.ok ? 'row ok' : 'row failed');
      const input = inputText(row);
      tr.append(el('td', row.id), el('td', row.s === undefined ? '' : row.s), el('td', outcome(row) + judged(row) + (row.cat ? ' (' + row.cat + ')' : '')), el('td', row.st === null ? 'none' : row.st), el('td', input.slice(0, 200), 'cut'));
      if (refs) tr.append(el('td', row.ref === undefined ? '' : row.ref.slice(0, 200), 'cut ref'));
      tr.append(el('td', answer(row).slice(0, 200), 'cut'), el('td', row.att));
      clickable(tr, row);
      body.append(tr);
    }
    pageWords(pages);
  }
  wire(['f-outcome', 'f-category', 'f-finish', 'f-disagree', 'f-wrong']);
})();`;
