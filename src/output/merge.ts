import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { mergedCost } from '../cost/cost-summary.js';
import { withShardTokens } from '../cost/model-tokens.js';
import { type ManifestJudge, mergedJudge } from '../judge/judge-manifest.js';
import type { FailureCategory } from '../record/record.js';
import { sumUsage } from '../record/usage-totals.js';
import { ERRORS_FILE, MANIFEST_FILE, OUTPUT_FILE } from '../state/file-names.js';
import { describeFsError, isFsError } from '../state/fs-problem.js';
import { NotARegularFileError, openRegularFile } from '../state/regular-file.js';
import { AtomicFile } from './atomic-file.js';
import { type DerivedFormat, writeDerivedFiles } from './derived-files.js';
import { describeInput, type Manifest, manifestModels, readManifest, toolInfo, writeManifest } from './manifest.js';
import { isCompleteManifest } from './manifest-shape.js';
import { discardStaging, prepareMergeTarget, swapIn, testKillPoint } from './merge-target.js';

export class MergeError extends Error {
  override name = 'MergeError';
}

interface ShardInfo {
  dir: string;
  manifest: Manifest;
  index: number;
  count: number;
}

export interface MergeReport {
  shards: number;
  succeeded: number;
  failed: number;
  manifest: Manifest;
  /** The shards' --format files, written again for the merged records. */
  derivedFiles: string[];
}

/**
 * Joins the output directories of `--shard K/N` runs into one output.jsonl and errors.jsonl in
 * input order (a streaming k-way merge on file order, then line), with a combined manifest whose
 * usage is the shards' summed. With the shards' `--format`, it writes that format's files too,
 * from the inputs (which must still be there, unchanged, at the paths the shards read them).
 * Refuses shards of different jobs, missing or repeated shards, and unfinished shards.
 */
export async function mergeShards(dirs: readonly string[], outDir: string): Promise<MergeReport> {
  const shards = await Promise.all(dirs.map(readShard));
  const { first, ordered, count } = checkShardSet(shards);
  const format = (first.manifest.config.format ?? 'jsonl') as DerivedFormat | 'jsonl';
  if (format !== 'jsonl') await checkInputsUnchanged(first.manifest, format);

  const staging = await prepareMergeTarget(outDir, dirs);
  try {
    const report = await writeMerge(ordered, count, format, staging, outDir);
    await swapIn(staging, outDir);
    return report;
  } catch (error) {
    await discardStaging(staging);
    throw error;
  }
}

/**
 * The shards as one complete set, in shard order: one job, one shard count, every index from 0
 * to N-1 exactly once, each finished. A merged directory is not a shard (its records would be
 * counted again).
 */
function checkShardSet(shards: readonly ShardInfo[]): { first: ShardInfo; ordered: ShardInfo[]; count: number } {
  const first = shards[0];
  if (!first) throw new MergeError('give the output directories of the shards to merge');
  const merged = shards.filter((s) => s.manifest.config.merged_from !== undefined);
  if (merged.length > 0) {
    throw new MergeError(`${merged.map((s) => s.dir).join(', ')} already holds a merge, not a shard; give the shards' own directories`);
  }
  // Before the jobs are compared: an unfinished shard is that, whatever its manifest says of its job.
  const unfinished = shards.filter((s) => s.manifest.status !== 'complete' && s.manifest.status !== 'finished_with_failures');
  if (unfinished.length > 0) {
    throw new MergeError(
      `unfinished shard(s): ${unfinished.map((s) => `${s.dir} (${describeUnfinished(s.manifest.status)})`).join(', ')}; resume them with --resume first`,
    );
  }
  const different = shards.filter((s) => s.manifest.job_fingerprint !== first.manifest.job_fingerprint);
  if (different.length > 0) {
    throw new MergeError(
      `these shards come from a different job than ${first.dir} (inputs, model, base URL, prompt settings, headers, row params, reply format or schema, or shard count differ): ${different.map((s) => s.dir).join(', ')}`,
    );
  }
  refuseOtherJudging(first, shards);
  const count = first.count;
  const byIndex = new Map<number, ShardInfo>();
  for (const shard of shards) {
    if (shard.count !== count || !Number.isSafeInteger(shard.index) || shard.index < 0 || shard.index >= count) {
      throw new MergeError(`${shard.dir} is shard ${shard.index}/${shard.count}, which is not one of ${first.dir}'s ${count} shard(s)`);
    }
    const twin = byIndex.get(shard.index);
    if (twin) throw new MergeError(`shard ${shard.index}/${count} is given twice: ${twin.dir} and ${shard.dir}`);
    byIndex.set(shard.index, shard);
  }
  const missing = Array.from({ length: count }, (_, k) => k).filter((k) => !byIndex.has(k));
  if (missing.length > 0)
    throw new MergeError(`missing shard(s) ${missing.map((k) => `${k}/${count}`).join(', ')}: run them, then merge all ${count}`);
  const ordered = [...byIndex.entries()].sort(([a], [b]) => a - b).map(([, s]) => s);
  return { first, ordered, count };
}

/**
 * How a run judges its replies: the reference field, the grader, the judge and its template.
 * They are not in the job's fingerprint (they change no request), but `correct` means what they
 * say: shards judged against different references would add up to one accuracy over two.
 */
const JUDGED_BY = ['expect', 'grade', 'judge', 'judgeTemplate'] as const;

function refuseOtherJudging(first: ShardInfo, shards: readonly ShardInfo[]): void {
  const setting = (shard: ShardInfo, name: string): string => JSON.stringify(shard.manifest.config[name] ?? null);
  for (const name of JUDGED_BY) {
    const other = shards.find((shard) => setting(shard, name) !== setting(first, name));
    if (other) {
      throw new MergeError(
        `${other.dir} judges its replies with ${name} ${setting(other, name)}, ${first.dir} with ${setting(first, name)}: ` +
          "their records' correct would be added up into one accuracy over two references; merge shards judged the same way " +
          '(run with the same --expect, --grade, --judge and --judge-template)',
      );
    }
  }
}

/** A running shard may be running still, or was killed (kill -9, a node lost) before it could say so. */
function describeUnfinished(status: string): string {
  return status === 'running' ? 'running, or killed while running' : status;
}

/** Writes the merged files into `staging`; the manifest names them where they will be, in `outDir`. */
async function writeMerge(
  ordered: readonly ShardInfo[],
  count: number,
  format: DerivedFormat | 'jsonl',
  staging: string,
  outDir: string,
): Promise<MergeReport> {
  const first = ordered[0]!;
  const fileOrder: RecordOrder = {
    files: new Map(first.manifest.inputs.map((input, i) => [input.path, i])),
    models: new Map(manifestModels(first.manifest.config).map((model, i) => [model, i])),
  };
  const succeeded = await mergeFile(
    ordered.map((s) => ({ file: path.join(s.dir, OUTPUT_FILE), expected: s.manifest.counts.succeeded })),
    path.join(staging, OUTPUT_FILE),
    fileOrder,
  );
  testKillPoint('staged-output');
  const failed = await mergeFile(
    ordered.map((s) => ({ file: path.join(s.dir, ERRORS_FILE), expected: s.manifest.counts.failed })),
    path.join(staging, ERRORS_FILE),
    fileOrder,
  );

  const byCategory: Partial<Record<FailureCategory, number>> = {};
  for (const shard of ordered) {
    for (const [category, n] of Object.entries(shard.manifest.counts.by_category) as Array<[FailureCategory, number]>) {
      byCategory[category] = (byCategory[category] ?? 0) + n;
    }
  }
  const { shard: _shard, ...config } = first.manifest.config;
  const derivedFiles =
    format === 'jsonl'
      ? []
      : await writeDerivedFiles(
          format,
          first.manifest.inputs.map((input) => input.path),
          staging,
          {
            escapeFormulas: config.escapeFormulas !== false,
            bom: config.bom === true,
            models: manifestModels(config),
          },
        );
  const manifest: Manifest = {
    tool: toolInfo(),
    node: process.version,
    status: failed > 0 ? 'finished_with_failures' : 'complete',
    job: first.manifest.job,
    job_fingerprint: first.manifest.job_fingerprint,
    config: {
      ...config,
      merged_from: ordered.map((s) => ({
        dir: s.dir,
        shard: `${s.index}/${count}`,
        status: s.manifest.status,
        counts: s.manifest.counts,
        usage: s.manifest.usage ?? null,
        cost_usd: s.manifest.cost?.usd ?? null,
      })),
    },
    inputs: first.manifest.inputs,
    counts: { rows: succeeded + failed, succeeded, ...cutCount(ordered), failed, pending: 0, by_category: byCategory },
    usage: sumUsage(ordered.map((s) => s.manifest.usage)),
    // With each model's tokens: the merged manifest keeps no sessions, where a run's are kept.
    cost: withShardTokens(
      mergedCost(
        ordered.map((s) => s.manifest.cost),
        ordered.map((s) => `${s.index}/${count}`),
      ),
      ordered.map((s) => s.manifest),
    ),
    // The judge's dollars are in cost.usd: its tokens and dollars apart, as each shard keeps them.
    ...judgeOf(ordered),
    started_at: ordered.map((s) => s.manifest.started_at).sort()[0]!,
    ended_at:
      ordered
        .map((s) => s.manifest.ended_at ?? '')
        .sort()
        .at(-1) ?? null,
    attempts_total: ordered.reduce((sum, s) => sum + s.manifest.attempts_total, 0),
    resumes: ordered.reduce((sum, s) => sum + s.manifest.resumes, 0),
    sessions: [],
    files: { output: path.join(outDir, OUTPUT_FILE), errors: path.join(outDir, ERRORS_FILE) },
  };
  await writeManifest(path.join(staging, MANIFEST_FILE), manifest);
  return { shards: count, succeeded, failed, manifest, derivedFiles: derivedFiles.map((file) => path.join(outDir, path.basename(file))) };
}

function judgeOf(ordered: readonly ShardInfo[]): { judge?: ManifestJudge } {
  const judge = mergedJudge(ordered.map((s) => s.manifest.judge));
  return judge ? { judge } : {};
}

/** The shards' replies cut at max_tokens, summed; left out when a shard's manifest predates the count (a sum would be short). */
function cutCount(ordered: readonly ShardInfo[]): { cut_at_max_tokens?: number } {
  const counts = ordered.map((s) => s.manifest.counts.cut_at_max_tokens);
  return counts.every((count) => typeof count === 'number') ? { cut_at_max_tokens: counts.reduce((a, b) => a! + b!, 0) } : {};
}

/**
 * The --format files join each record to its input row by file and line, so the inputs must be
 * the ones the shards read: same path, same content (the manifest's sha256).
 */
async function checkInputsUnchanged(manifest: Manifest, format: DerivedFormat): Promise<void> {
  for (const input of manifest.inputs) {
    const now = await describeInput(input.path, input.rows);
    if (now.sha256 === null) {
      throw new MergeError(
        `the shards ran with --format ${format}, whose files are rebuilt from the inputs, but ${input.path} ${now.problem ?? 'cannot be read'}; run merge from the directory the shards ran in`,
      );
    }
    if (input.sha256 !== null && now.sha256 !== input.sha256) {
      throw new MergeError(
        `the shards ran with --format ${format}, whose files are rebuilt from the inputs, but ${input.path} has changed since the shards read it; merge with the inputs as they were`,
      );
    }
  }
}

async function readShard(dir: string): Promise<ShardInfo> {
  const manifest = await readManifest(path.join(dir, 'manifest.json'));
  if (!manifest || !isCompleteManifest(manifest)) {
    throw new MergeError(`${dir}: no readable manifest.json of a chatbatch run; is it a chatbatch output directory?`);
  }
  const shard = manifest.config.shard as { index: number; count: number } | null | undefined;
  return { dir, manifest, index: shard?.index ?? 0, count: shard?.count ?? 1 };
}

/** File order, line, model, sample: a row's records stay together, by model in the order given, then by sample. */
type RecordKey = [file: number, line: number, model: number, sample: number];

/** The input files and the models in the job's order. */
interface RecordOrder {
  files: ReadonlyMap<string, number>;
  models: ReadonlyMap<string, number>;
}

/** The models of a shard's run as its manifest gives them: `models` when several, else `model`. */
interface Source {
  file: string;
  /** Records its shard's manifest counts in it. */
  expected: number;
}

interface Head {
  key: RecordKey;
  line: string;
  reader: SourceReader;
}

/** One shard's record file, read line by line, knowing where it is (for messages) and how many records it gave. */
class SourceReader {
  private readonly lines: AsyncIterator<string>;
  private lineNumber = 0;
  private lastKey: RecordKey | null = null;
  records = 0;

  private constructor(
    readonly source: Source,
    private readonly order: RecordOrder,
    private readonly handle: FileHandle,
  ) {
    this.lines = createInterface({ input: handle.createReadStream(), crlfDelay: Infinity })[Symbol.asyncIterator]();
  }

  /** A regular file only: a FIFO put in a shard directory would make merge wait forever. */
  static async open(source: Source, order: RecordOrder): Promise<SourceReader> {
    try {
      return new SourceReader(source, order, await openRegularFile(source.file));
    } catch (error) {
      if (error instanceof NotARegularFileError) throw new MergeError(`cannot read ${error.message}`);
      throw isFsError(error) ? new MergeError(`cannot read ${describeFsError(error, source.file)}`) : error;
    }
  }

  close(): Promise<void> {
    return this.handle.close().catch(() => {});
  }

  /** The next record, or null at the end; a line that is not one of our records is a MergeError naming file and line. */
  async next(): Promise<Head | null> {
    for (;;) {
      const result = await this.lines.next().catch((error: unknown) => {
        throw isFsError(error) ? new MergeError(`cannot read ${describeFsError(error, this.source.file)}`) : error;
      });
      if (result.done) return null;
      this.lineNumber++;
      const line = result.value;
      if (line.trim() === '') continue;
      const record = parseRecordLine(line);
      const where = `${this.source.file} line ${this.lineNumber}`;
      if (!record)
        throw new MergeError(`${where} is not a whole record (torn or edited); re-run that shard with --resume, or restore the file`);
      const fileIndex = this.order.files.get(record.file);
      if (fileIndex === undefined) throw new MergeError(`${where}: a record names ${record.file}, which is not among the job's inputs`);
      // A one-model run's records all name its model; an older manifest may name none: one place.
      const modelIndex = this.order.models.size <= 1 ? 0 : this.order.models.get(record.model ?? '');
      if (modelIndex === undefined)
        throw new MergeError(`${where}: a record names the model ${record.model}, which is not among the job's models`);
      const key: RecordKey = [fileIndex, record.line, modelIndex, record.sample];
      // The k-way merge relies on each file being in input order, as a run writes it.
      if (this.lastKey && compare(key, this.lastKey) <= 0) {
        throw new MergeError(`${where} is out of input order (the file was edited); re-run that shard, or restore the file`);
      }
      this.lastKey = key;
      this.records++;
      return { key, line, reader: this };
    }
  }
}

function parseRecordLine(line: string): { file: string; line: number; sample: number; model: string | null } | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  const record = value as { file?: unknown; line?: unknown; sample?: unknown; model?: unknown } | null;
  if (typeof record !== 'object' || record === null || typeof record.file !== 'string') return null;
  const sample = record.sample ?? 0;
  if (!Number.isSafeInteger(record.line) || !Number.isSafeInteger(sample)) return null;
  const model = typeof record.model === 'string' ? record.model : null;
  return { file: record.file, line: record.line as number, sample: sample as number, model };
}

/**
 * Streams the sorted record files into one, in input order; returns the number of records. Two
 * records of one row (file, line, sample) mean the shards overlap, and a shard whose file holds
 * another number of records than its manifest counts was changed after it finished: both are
 * refused, since a merge that double-counts would be believed by every report after it.
 */
async function mergeFile(sources: readonly Source[], target: string, order: RecordOrder): Promise<number> {
  const out = await AtomicFile.create(target);
  const readers: SourceReader[] = [];
  let written = 0;
  try {
    for (const source of sources) readers.push(await SourceReader.open(source, order));
    const heads: Head[] = [];
    for (const reader of readers) {
      const head = await reader.next();
      if (head) heads.push(head);
    }
    let previous: Head | null = null;
    while (heads.length > 0) {
      let best = 0;
      for (let i = 1; i < heads.length; i++) if (compare(heads[i]!.key, heads[best]!.key) < 0) best = i;
      const head = heads[best]!;
      if (previous && compare(previous.key, head.key) === 0) {
        throw new MergeError(
          `the row at ${describeKey(head.key, order)} has two records, in ${previous.reader.source.file} and ${head.reader.source.file}: the shards overlap`,
        );
      }
      out.write(`${head.line}\n`);
      written++;
      previous = head;
      const following = await head.reader.next();
      if (following) heads[best] = following;
      else heads.splice(best, 1);
    }
    for (const reader of readers) {
      if (reader.records !== reader.source.expected) {
        throw new MergeError(
          `${reader.source.file} holds ${reader.records} record(s) but its manifest counts ${reader.source.expected}: it changed after the shard finished; re-run that shard with --resume`,
        );
      }
    }
    await out.commit();
    return written;
  } catch (error) {
    await out.discard();
    throw error;
  } finally {
    for (const reader of readers) await reader.close();
  }
}

function describeKey([file, line, model, sample]: RecordKey, order: RecordOrder): string {
  const name = [...order.files].find(([, index]) => index === file)?.[0] ?? '?';
  const modelName = order.models.size > 1 ? [...order.models].find(([, index]) => index === model)?.[0] : undefined;
  return `${name}:${line}${modelName === undefined ? '' : ` (model ${modelName})`}${sample > 0 ? ` (sample ${sample})` : ''}`;
}

function compare(a: RecordKey, b: RecordKey): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3];
}
