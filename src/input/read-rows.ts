import { InputError } from './errors.js';
import { ACCEPTED_EXTENSIONS, formatOf, INPUT_FORMATS } from './formats.js';
import { eachRow, type InputRow } from './row.js';

/** Every row of every file, files in the order given, each read by the reader its extension names. */
export function readRows(files: readonly string[]): AsyncGenerator<InputRow> {
  return eachRow(readRowBatches(files));
}

/**
 * The same rows, the rows of one read of a file at a time: the run's row path takes them so, a
 * resumption of the readers per chunk instead of per row. Take a batch's rows before asking for
 * the next batch: a batch may be a view of its reader's buffer.
 */
export async function* readRowBatches(files: readonly string[]): AsyncGenerator<Iterable<InputRow>> {
  for (const file of files) {
    const format = formatOf(file);
    if (format === null) throw new InputError(`${file}: cannot read this kind of file (accepted: ${ACCEPTED_EXTENSIONS})`);
    yield* INPUT_FORMATS[format].read(file);
  }
}
