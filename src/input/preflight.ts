import { InputError } from './errors.js';
import { formatOf, INPUT_FORMATS } from './formats.js';

/**
 * What can be known about the inputs before the first request, checked for every file so that a
 * run that exits 2 has sent nothing: each file can be opened and read, and each CSV header
 * (read up to its end and no further) has a name for every column, no name twice, UTF-8, a
 * closed quote. Problems found later in a file (a record over the size cap, a read error part
 * way) become invalid rows and the run goes on.
 *
 * One problem per file that has one, each naming the file (and line), in the order of `files`.
 */
export async function inputProblems(files: readonly string[]): Promise<Array<{ file: string; problem: string }>> {
  const problems: Array<{ file: string; problem: string }> = [];
  for (const file of files) {
    const format = formatOf(file);
    const problem = format === null ? null : await INPUT_FORMATS[format].problem(file);
    if (problem !== null) problems.push({ file, problem });
  }
  return problems;
}

/** Throws InputError listing every input file that cannot be used; called before any request. */
export async function preflightInputs(files: readonly string[]): Promise<void> {
  const problems = await inputProblems(files);
  if (problems.length === 1) throw new InputError(`${problems[0]!.problem}; nothing was sent`);
  if (problems.length > 1) {
    throw new InputError(
      `${problems.length} input files cannot be used; nothing was sent:\n${problems.map((p) => `  ${p.problem}`).join('\n')}`,
    );
  }
}
