export interface Column<T> {
  header: string;
  value(row: T): string;
  align?: 'left' | 'right';
}

/** A plain-text table: one header line, a rule, one line per row. */
export function formatTable<T>(columns: Column<T>[], rows: T[]): string {
  const cells = rows.map((row) => columns.map((column) => column.value(row)));
  const widths = columns.map((column, i) => Math.max(column.header.length, ...cells.map((line) => line[i]!.length)));
  const pad = (text: string, i: number): string =>
    (columns[i]!.align ?? 'right') === 'left' ? text.padEnd(widths[i]!) : text.padStart(widths[i]!);
  const lines = [
    columns.map((column, i) => pad(column.header, i)).join('  '),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...cells.map((line) => line.map((cell, i) => pad(cell, i)).join('  ')),
  ];
  return lines.join('\n');
}

/** A number with `digits` decimals, or "-" when absent. */
export function num(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '-';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
