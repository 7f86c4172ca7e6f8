import { InputError } from '../input/errors.js';
import { formatOf } from '../input/formats.js';
import { nearestName } from '../input/nearest-name.js';
import { PLACEHOLDER } from './template.js';

/**
 * A template's `{{column}}` that a CSV input's header does not have would make every row of that
 * file an `invalid_input` record (20,000 of them for a nightly file, and "20000 failed" on the
 * screen). Checked against every CSV header before the first request: the run stops (exit 2)
 * naming the file, the column and the nearest header. JSON lines have no header: their rows are
 * checked one by one, as before. A Parquet file's header is its schema's top-level columns.
 */
export async function checkTemplateColumns(template: string | null, files: readonly string[]): Promise<void> {
  if (!template) return;
  const names = [...new Set([...template.matchAll(PLACEHOLDER)].map((match) => match[1]!))];
  if (names.length === 0) return;
  const problems: string[] = [];
  for (const file of files) {
    const header = await headerOf(file);
    if (header === null) continue;
    for (const name of names) {
      if (header.includes(name)) continue;
      const nearest = nearestName(name, header, Math.max(2, Math.floor(name.length / 3)));
      problems.push(
        `${file}: the template's {{${name}}} is not a column of its header${nearest ? ` (did you mean {{${nearest}}}?)` : ''}; columns: ${header.join(', ')}`,
      );
    }
  }
  if (problems.length === 1) throw new InputError(`${problems[0]}; nothing was sent`);
  if (problems.length > 1)
    throw new InputError(`the template names columns the inputs lack; nothing was sent:\n${problems.map((p) => `  ${p}`).join('\n')}`);
}

/** The column names of a file that has a header (CSV, Parquet); null for one that has none. */
async function headerOf(file: string): Promise<readonly string[] | null> {
  const format = formatOf(file);
  if (format === 'csv') return (await import('../input/csv-reader.js')).readCsvHeader(file);
  if (format !== 'parquet') return null;
  const { parquetColumns } = await import('../input/parquet-reader.js');
  // The preflight has found the file usable; should it be damaged, the preflight's error says so.
  return parquetColumns(file).catch(() => null);
}
