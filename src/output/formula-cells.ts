/**
 * Spreadsheet formula escaping for the CSV cells that chatbatch did not copy from the user:
 * what the model or the server wrote (reply, data.*, message, code, trace id) and header
 * names. A cell a spreadsheet would run as a formula gets a leading `'`. The user's own input
 * cells are copied verbatim: `=SUM(A1:A3)` in the input is the user's formula, not an attack.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

export function escapeFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** The result columns whose values come from the model or the server. */
export const FOREIGN_COLUMNS: ReadonlySet<string> = new Set(['reply', 'code', 'message', 'trace_id', 'reply_text']);
