/**
 * Whether the command line names `-` (standard input, by Unix custom) as an input. yargs drops a
 * lone `-` from positionals, so `run -` would otherwise say "no inputs"; as an option's value
 * (`--system -`) it becomes ''. After `--` it stays, as an input.
 */
export function namesStandardInput(argv: readonly string[], optionValue: (option: string) => unknown): boolean {
  const end = argv.indexOf('--');
  if (end !== -1 && argv.slice(end + 1).includes('-')) return true;
  const options = end === -1 ? argv : argv.slice(0, end);
  return options.some((arg, i) => arg === '-' && !isValueOf(options[i - 1], optionValue));
}

function isValueOf(previous: string | undefined, optionValue: (option: string) => unknown): boolean {
  if (!previous?.startsWith('--') || previous.includes('=')) return false;
  const value = optionValue(previous.slice(2));
  return value === '' || (Array.isArray(value) && value.includes(''));
}

/** A run reads its inputs more than once (to count rows, to resume, to write CSV beside them). */
export const STANDARD_INPUT_REFUSAL =
  "'-' (standard input) cannot be an input: a run reads its inputs more than once (to count, resume and write results beside them); save the rows to a .jsonl or .csv file and name that file";
