import { formatOf } from '../input/formats.js';

const FORMAT_NAMES = { csv: 'a CSV', jsonl: 'a JSONL', parquet: 'a Parquet' } as const;

const WHAT_A_JOB_IS =
  'a job file is a JSON object of settings such as {"inputs": ["rows.csv"], "model": "..."} (`chatbatch schema` lists its keys)';

/** The problem with a job file named like an input file (CSV, JSONL): null when it is not one. */
export function inputFileAsJob(file: string): string | null {
  const format = formatOf(file);
  if (format === null) return null;
  return `this is ${FORMAT_NAMES[format]} input file, not a job file: ${WHAT_A_JOB_IS}; name input files in its "inputs" or on the command line`;
}

/** The problem with a job file that does not parse as JSON, on one line (V8 quotes the text, line breaks and all). */
export function notJson(error: Error): string {
  return `not valid JSON (${error.message.replace(/\s+/g, ' ').trim()}): ${WHAT_A_JOB_IS}`;
}
