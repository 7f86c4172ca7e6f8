import type { RunConfig } from '../job/config.js';
import type { Manifest } from '../output/manifest.js';
import { categoryOf } from '../record/outcome-code.js';
import { samplesPerRow } from '../report/pending.js';
import { BatchNotes } from '../request/batch-notes.js';
import { prepareRows, prepareSettingsOf } from '../request/prepare.js';
import { sampleIndexes, sampleKey } from '../request/samples.js';
import type { PreviousResults } from '../state/previous-results.js';
import { OutDirInUseError } from './errors.js';

/**
 * `--resume` writes output.jsonl and errors.jsonl anew from this run's inputs: a row the earlier
 * run settled that these inputs no longer hold (other files, a shorter file, fewer samples)
 * would lose its record. Such a resume is refused, before anything is sent or written, unless
 * `--allow-dropped-rows` says so. Appending rows, fixing a line or growing --repeat keep every
 * settled row, and go on as before: `invalid_input` records are not counted (a fixed line's
 * record is replaced by its row's), and a row sent once that now gets samples is still there.
 *
 * The check is one pass over the inputs, counting the settled keys they still hold against the
 * records written: no set of keys is kept, so memory stays flat whatever the input's size.
 */
export async function refuseDroppedRows(
  config: RunConfig,
  files: readonly string[],
  earlier: { previous: PreviousResults | null; previousWritten: { manifest: Manifest } | null },
  log: (line: string) => void,
): Promise<void> {
  const settled = earlier.previous?.byKey;
  if (!config.resume || !settled || settled.size === 0) return;
  let found = 0;
  const samples = sampleIndexes(config.repeat);
  const counts = (key: string): boolean => {
    const earlierResult = settled.get(key);
    return earlierResult !== undefined && categoryOf(earlierResult.outcome) !== 'invalid_input';
  };
  // From --repeat 1 to more: a row's one record is followed by its samples; the row is still here.
  const samplesFollowOne = config.repeat > 1 && samplesPerRow(earlier.previousWritten?.manifest ?? {}) === 1;
  for await (const row of prepareRows(files, prepareSettingsOf(config), new BatchNotes(config.model))) {
    if (row.kind === 'other-shard') continue;
    for (const sample of samples) if (counts(sampleKey(row.key, sample))) found++;
    if (samplesFollowOne && counts(row.key)) found++;
  }
  const dropped = recordsWritten(earlier.previousWritten?.manifest, settled.size) - found;
  if (dropped <= 0) return;
  const what = `${dropped} row(s) the earlier run in ${config.outDir} settled are not in this run's inputs (${describeInputs(earlier.previousWritten?.manifest, files)})`;
  if (config.allowDroppedRows) {
    log(`${what}: their records are dropped from output.jsonl and errors.jsonl (--allow-dropped-rows)`);
    return;
  }
  throw new OutDirInUseError(
    `${what}; resuming would drop their records from output.jsonl and errors.jsonl. Nothing was sent or changed.\n` +
      `  resume with the earlier inputs (appending rows, fixing a line or a larger --repeat are fine),\n` +
      `  use another --out for these inputs, or add --allow-dropped-rows to drop those records.`,
  );
}

/**
 * How many records the output files hold now: the final manifest's count; the journal's settled
 * rows when the earlier session ended without one (killed). Not the journal's alone: rows an
 * earlier `--allow-dropped-rows` dropped stay in the journal but are in no file, and must not
 * stop every later resume.
 */
function recordsWritten(manifest: Manifest | undefined, journalSettled: number): number {
  if (!manifest || manifest.status === 'running' || !manifest.counts) return journalSettled;
  const { succeeded, failed, by_category: byCategory } = manifest.counts;
  return succeeded + failed - (byCategory?.invalid_input ?? 0);
}

function describeInputs(manifest: Manifest | undefined, files: readonly string[]): string {
  const earlier = manifest?.inputs.map((input) => input.path) ?? [];
  const now = files.join(', ') || 'none';
  if (earlier.length === 0) return `now: ${now}`;
  const gone = earlier.filter((file) => !files.includes(file));
  return `earlier: ${earlier.join(', ')}; now: ${now}${gone.length > 0 ? `; no longer given: ${gone.join(', ')}` : ''}`;
}
