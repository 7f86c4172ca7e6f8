/**
 * What both rows views' scripts share (rows-script.ts for one model, model-rows-script.ts for
 * several), inlined inside each one's function: it uses the names both declare (`$`, `rows`,
 * `shown`, `page`, `render`, `apply`, `detail`). A table row that opens its detail on a click or
 * Enter, the page's counts and buttons, and the filters' wiring.
 */
export const ROWS_VIEW_SHARED = `
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
