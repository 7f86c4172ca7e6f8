import { rm } from 'node:fs/promises';
import path from 'node:path';
import { readRows } from '../input/read-rows.js';
import { DERIVED_FILES, ERRORS_FILE, OUTPUT_FILE } from '../state/file-names.js';
import { AtomicFile } from './atomic-file.js';
import { type ByteSink, type CsvOptions, type FormatContext, type FormatWriter, lineWriter } from './format-writer.js';
import { batchResultWriter } from './openai-batch.js';
import { RecordLines } from './record-lines.js';

export type { CsvOptions } from './format-writer.js';
export type DerivedFormat = keyof typeof DERIVED_FILES;

/** The formats --format adds beside output.jsonl and errors.jsonl: a new one is a row here and its writer. */
const DERIVED_FORMATS: Readonly<
  Record<DerivedFormat, (context: FormatContext, files: readonly [ByteSink, ByteSink]) => Promise<FormatWriter>>
> = {
  // Loaded when asked for: most runs write no CSV or Parquet, and need none of csv-stringify or hyparquet-writer.
  csv: async (context, files) => lineWriter(await (await import('./csv-format.js')).csvWriter(context), files),
  'openai-batch': async (context, files) => lineWriter(await batchResultWriter((context.csv.models?.length ?? 1) > 1), files),
  parquet: async (context, files) => (await import('./parquet-format.js')).parquetWriter(context, files),
};

/**
 * Files derived from the canonical output.jsonl/errors.jsonl: the enriched CSV (input columns,
 * then results) or Batch-API-shaped result lines. The inputs are read again in order beside
 * both files (which are in input order too), so each record meets its own input row, matched by
 * file and line, without holding any of them in memory. Rows with no record (pending, or in
 * another shard) are left out.
 */
export async function writeDerivedFiles(
  format: DerivedFormat,
  files: readonly string[],
  outDir: string,
  csv: CsvOptions,
): Promise<string[]> {
  const succeeded = new RecordLines(path.join(outDir, OUTPUT_FILE));
  const failed = new RecordLines(path.join(outDir, ERRORS_FILE));
  const names = DERIVED_FILES[format];
  const [output, errors] = await Promise.all(names.map((name) => AtomicFile.create(path.join(outDir, name))));
  try {
    // Records of a run with --repeat above 1 carry `sample`: the CSV files get a column for it.
    const sampled = await hasSamples(succeeded, failed);
    const writer = await DERIVED_FORMATS[format]({ inputs: files, outDir, sampled, csv }, [output!, errors!]);
    for await (const row of readRows(files)) {
      // A row has one record per sample, in sample order, in either file.
      for (const [records, ok] of [
        [succeeded, true],
        [failed, false],
      ] as const) {
        for (let record = await records.take(row.file, row.line); record !== null; record = await records.take(row.file, row.line)) {
          writer.add(row, record, ok);
        }
      }
    }
    writer.end();
    await output!.commit();
    await errors!.commit();
    return names.map((name) => path.join(outDir, name));
  } catch (error) {
    await output!.discard();
    await errors!.discard();
    throw error;
  } finally {
    await succeeded.close();
    await failed.close();
  }
}

async function hasSamples(...files: RecordLines[]): Promise<boolean> {
  for (const file of files) {
    const first = await file.peek();
    if (first !== null) return first.sample !== undefined;
  }
  return false;
}

/**
 * Removes the derived files of an earlier session: a run that stopped with rows pending writes
 * none (a CSV of the rows settled so far would look like the whole result), and an earlier
 * one no longer describes this output directory. They are written when every row has settled.
 */
export async function removeDerivedFiles(format: DerivedFormat, outDir: string): Promise<void> {
  await Promise.all(DERIVED_FILES[format].map((name) => rm(path.join(outDir, name), { force: true })));
}
