/** The files a run writes in its output directory. */
export const OUTPUT_FILE = 'output.jsonl';
export const ERRORS_FILE = 'errors.jsonl';
export const MANIFEST_FILE = 'manifest.json';

/** Files written beside the canonical ones by `--format`. */
export const DERIVED_FILES = {
  csv: ['output.csv', 'errors.csv'],
  'openai-batch': ['batch-output.jsonl', 'batch-errors.jsonl'],
  parquet: ['output.parquet', 'errors.parquet'],
} as const;

/** What --format accepts: the canonical files alone, or with one of the derived formats. */
export const OUTPUT_FORMATS = ['jsonl', 'csv', 'openai-batch', 'parquet'] as const satisfies ReadonlyArray<
  'jsonl' | keyof typeof DERIVED_FILES
>;
