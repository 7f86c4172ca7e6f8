/**
 * What both rows views' scripts share (rows-script.ts for one model, model-rows-script.ts for
 * several), inlined inside each one's function: it uses the names both declare (`$`,
 * `PAGE`, `rows`, `shown`, `page`, `render`, `apply`, `detail`); `refs` says whether the rows show a
 * reference column (html-report.ts and model-html.ts decide alike, from the same rows). An element holding text (never markup), a record's fields in a detail, a table
 * row that opens its detail on a click or Enter, the page's counts and buttons, the filters' wiring.
 */
export const ROWS_VIEW_SHARED = `
  function el(tag, content, cls) { const e = document.createElement(tag); if (content !== undefined && content !== null) e.textContent = String(content); if (cls) e.className = cls; return e; }
  function definitions(dl) {
    return (key, value, pre) => { if (value === null || value === undefined || value === '') return; dl.append(el('dt', key)); const dd = el('dd'); dd.append(el(pre ? 'pre' : 'span', value)); dl.append(dd); };
  }
  function rowFields(add, row) {
    add('id', row.id);
    if (row.s !== undefined) add('sample', row.s);
    if (row.ref !== undefined) add('reference (--expect)', row.ref, true);
    if (row.in) for (const [k, v] of Object.entries(row.in)) add('input.' + k, v, true);
    else add('input', '(not in the records: run with --keep-input to keep the row\\'s fields)');
  }
  const refs = rows.some((row) => row.ref !== undefined);
  function inputText(row) {
    return row.in ? Object.entries(row.in).map(([k, v]) => k + ': ' + v).join('  ') : '';
  }
  function currentPage() {
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.min(page, pages - 1);
    return { pages, rows: shown.slice(page * PAGE, page * PAGE + PAGE) };
  }
  function recordFields(add, r) {
    add('reply', r.r, true);
    add('reasoning', r.rs, true);
    add('data', r.d, true);
    add('answer compared (--expect field)', r.a, true);
    add('outcome', r.ok ? 'ok' : 'failed');
    if (r.c !== undefined) add('correct', r.c === null ? 'not judged (no reply, or no reference)' : String(r.c));
    add('status', r.st === null ? 'none' : r.st);
    add('category', r.cat);
    add('code', r.code);
    add('message', r.msg, true);
    add('finish_reason', r.fr);
    add('attempts', r.att);
    add('trace id', r.tr);
    if (r.ag !== undefined) add('sample agreement', Math.round(r.ag * 100) + '%');
  }
  function clickable(tr, row) {
    tr.tabIndex = 0;
    const toggle = () => { const next = tr.nextSibling; if (next && next.classList && next.classList.contains('detail')) next.remove(); else tr.after(detail(row)); };
    tr.addEventListener('click', toggle);
    tr.addEventListener('keydown', (e) => { if (e.key === 'Enter') toggle(); });
  }
  function pageWords(pages) {
    $('rows-count').textContent = shown.length + ' of ' + rows.length + ' shown';
    $('rows-page').textContent = 'page ' + (page + 1) + ' of ' + pages;
    $('rows-prev').disabled = page === 0;
    $('rows-next').disabled = page >= pages - 1;
  }
  function wire(filters) {
    let timer = null;
    $('f-search').addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(apply, 150); });
    for (const id of filters) $(id).addEventListener('change', apply);
    $('rows-prev').addEventListener('click', () => { page--; render(); });
    $('rows-next').addEventListener('click', () => { page++; render(); });
    render();
  }
`;
