import type { RunConfig } from '../job/config.js';
import type { Manifest } from '../output/manifest.js';
import { DROPPED, outcomeCode } from '../record/outcome-code.js';
import { NUL_ID_PROBLEM, prepareRowKeys, prepareSettingsOf } from '../request/prepare.js';
import { copiesPerRow, keyModelOf, modelKey, sampleIndexes, sampleKey } from '../request/samples.js';
import { readJournal } from '../state/journal.js';
import type { PreviousResults } from '../state/previous-results.js';
import type { ResultTable } from '../state/result-table.js';
import type { SeenIds } from '../state/seen-ids.js';
import { OutDirInUseError } from './errors.js';
import type { RunOptions } from './run-options.js';

/**
 * `--resume` writes output.jsonl and errors.jsonl anew from this run's inputs: a record there
 * whose row these inputs no longer hold (other files, a shorter file, another id field, fewer
 * samples) would be lost. Such a resume is refused, before anything is sent or written, unless
 * `--allow-dropped-rows` says so. Appending rows, fixing a line or growing --repeat keep every
 * record, and go on as before: `invalid_input` records are not counted (a fixed line's record is
 * replaced by its row's), and a record of a row sent once is kept by the row's samples.
 *
 * With one model and one sample, the inputs' keys are first walked beside the journal: a journal
 * whose lines come in their order (a finished run's) drops nothing, and needs no table
 * (`EarlierResults.checkOrder`). Otherwise each key the inputs give marks its slot in the table of
 * the journal's results (one byte a slot: a second table of the inputs' keys took ~37 MB at a
 * million rows, beside the first); the journal's keys left unmarked are the dropped ones.
 */
export async function refuseDroppedRows(
  config: RunConfig,
  files: readonly string[],
  earlier: { previous: PreviousResults | null; previousWritten: { manifest: Manifest } | null },
  journalFile: string,
  log: RunOptions['log'],
  /** The run's table of ids seen, empty: used for the inputs' ids here, and left empty. */
  seen: SeenIds,
): Promise<string[]> {
  if (!config.resume || !earlier.previous || earlier.previous.byKey.lines === 0) return [];
  const previous = earlier.previous.byKey;
  // The run's own table of ids, emptied after: a table of their own grew by half again each time
  // up to a million ids (~25 MB of arrays in all, garbage once read), beside the run's 8.5 MB.
  // Sized for the rows the journal holds (its lines, one a copy of a row).
  seen.reserve(Math.ceil(previous.lines / copiesPerRow(config)));
  const keyModel = keyModelOf(config.models, earlier.previousWritten?.manifest ?? null);
  // One model, one sample: the run asks for each row's result once, in input order. When the
  // journal's lines come in that order (a finished run's do), every line is a row of these
  // inputs, so none is dropped, and no table is needed (earlier-results.ts).
  if (copiesPerRow(config) === 1) {
    const inOrder = await withSeen(seen, () =>
      previous.checkOrder(async (ask) => (await markInputKeys(config, files, keyModel, seen, ask)).distinct),
    );
    if (inOrder) return [];
  }
  const table = previous.table();
  const found = new Uint8Array(table.capacity);
  const mark = (key: string) => {
    const slot = table.slotOf(key);
    if (slot >= 0) found[slot] = 1;
  };
  const { nulIds } = await withSeen(seen, () => markInputKeys(config, files, keyModel, seen, mark));
  // The journal is the truth: output.jsonl and errors.jsonl may have been cut short or emptied
  // (by hand, or by an older chatbatch's resume that stopped early).
  const invalidInput = outcomeCode('invalid_input');
  const counted = (outcome: number) => outcome !== invalidInput && outcome !== DROPPED;
  const dropped = table.countUnmarked(found, counted);
  if (dropped === 0) return [];
  const what =
    nulIds > 0
      ? `${dropped} record(s) the earlier run wrote in ${config.outDir} are of rows whose id holds a NUL character (U+0000), which a run of several models cannot key, or of rows not in this run's inputs (${describeInputs(earlier.previousWritten?.manifest, files)})`
      : `${dropped} record(s) the earlier run wrote in ${config.outDir} are of rows not in this run's inputs (${describeInputs(earlier.previousWritten?.manifest, files)})`;
  if (config.allowDroppedRows) {
    log(`${what}: they are dropped from output.jsonl and errors.jsonl (--allow-dropped-rows)`, 'warning');
    return droppedKeys(journalFile, table, found, counted);
  }
  throw new OutDirInUseError(
    `${what}; resuming would drop them from output.jsonl and errors.jsonl. Nothing was sent or changed.\n` +
      `  resume with the earlier inputs (appending rows, fixing a line or a larger --repeat are fine),\n` +
      `  use another --out for these inputs, or add --allow-dropped-rows to drop those records.`,
  );
}

/** `read`, with the run's table of ids emptied after it (the run fills it again as it reads). */
async function withSeen<T>(seen: SeenIds, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } finally {
    seen.clear();
  }
}

/**
 * The keys of the dropped records, read from the journal (the table keeps hashes, not keys): the
 * run journals each as dropped, so that a later resume of these inputs is not refused for them.
 */
async function droppedKeys(
  journalFile: string,
  table: ResultTable,
  found: Uint8Array,
  counted: (outcome: number) => boolean,
): Promise<string[]> {
  const keys = new Set<string>();
  await readJournal(journalFile, (entry) => {
    if (keys.has(entry.k) || found[table.slotOf(entry.k)] === 1) return;
    const latest = table.get(entry.k);
    if (latest && counted(latest.outcome)) keys.add(entry.k);
  });
  return [...keys];
}

/**
 * Calls `mark` with every journal key this run's inputs give (a row's, or each model's and
 * sample's with several models and --repeat), in the order the run asks for them; returns how
 * many rows have an id this run cannot key (a NUL in a run of several models makes the row
 * invalid_input, so an earlier run's record of it, a paid reply from a run of one model, is
 * dropped, not kept, and counts as such), and whether every key is sure to be given once: a
 * repeated id's key (`dup:` and where it is) could be another row's id.
 */
async function markInputKeys(
  config: RunConfig,
  files: readonly string[],
  keyModel: string,
  seen: SeenIds,
  mark: (key: string) => void,
): Promise<{ nulIds: number; distinct: boolean }> {
  let nulIds = 0;
  let distinct = true;
  const samples = sampleIndexes(config.repeat);
  // Keys only: building and hashing every row's request too was a third of a million-row resume's CPU.
  for await (const row of prepareRowKeys(files, prepareSettingsOf(config), seen)) {
    if (row.kind === 'other-shard') continue;
    if (row.kind === 'invalid' && row.problem === NUL_ID_PROBLEM) {
      nulIds++;
      continue;
    }
    if (row.kind === 'invalid' && row.key !== row.origin.id) distinct = false;
    for (let model = 0; model < config.models.length; model++) {
      const rowKey = modelKey(row.key, config.models[model]!, keyModel);
      for (const sample of samples) mark(sampleKey(rowKey, sample));
    }
    // A row sent once before --repeat grew keeps its one record (followed by its samples).
    if (config.repeat > 1) mark(row.key);
  }
  return { nulIds, distinct };
}

function describeInputs(manifest: Manifest | undefined, files: readonly string[]): string {
  const earlier = manifest?.inputs.map((input) => input.path) ?? [];
  const now = files.join(', ') || 'none';
  if (earlier.length === 0) return `now: ${now}`;
  const gone = earlier.filter((file) => !files.includes(file));
  return `earlier: ${earlier.join(', ')}; now: ${now}${gone.length > 0 ? `; no longer given: ${gone.join(', ')}` : ''}`;
}
