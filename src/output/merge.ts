import { createReadStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { FailureCategory } from '../record/record.js';
import { AtomicFile } from './atomic-file.js';
import { type DerivedFormat, writeDerivedFiles } from './derived-files.js';
import { ERRORS_FILE, OUTPUT_FILE } from './file-names.js';
import { describeInput, type Manifest, readManifest, toolInfo, writeManifest } from './manifest.js';
import { sumUsage } from './usage-totals.js';

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
  const first = shards[0];
  if (!first) throw new MergeError('give the output directories of the shards to merge');
  const different = shards.filter((s) => s.manifest.job_fingerprint !== first.manifest.job_fingerprint);
  if (different.length > 0) {
    throw new MergeError(
      `these shards come from a different job than ${first.dir} (inputs, model, base URL, prompt settings, headers, row params, reply format or schema, or shard count differ): ${different.map((s) => s.dir).join(', ')}`,
    );
  }
  const count = first.count;
  const byIndex = new Map<number, ShardInfo>();
  for (const shard of shards) {
    const twin = byIndex.get(shard.index);
    if (twin) throw new MergeError(`shard ${shard.index}/${count} is given twice: ${twin.dir} and ${shard.dir}`);
    byIndex.set(shard.index, shard);
  }
  const missing = Array.from({ length: count }, (_, k) => k).filter((k) => !byIndex.has(k));
  if (missing.length > 0)
    throw new MergeError(`missing shard(s) ${missing.map((k) => `${k}/${count}`).join(', ')}: run them, then merge all ${count}`);
  const unfinished = shards.filter((s) => s.manifest.status !== 'complete' && s.manifest.status !== 'finished_with_failures');
  if (unfinished.length > 0) {
    throw new MergeError(
      `unfinished shard(s): ${unfinished.map((s) => `${s.dir} (${s.manifest.status})`).join(', ')}; resume them with --resume first`,
    );
  }

  const format = (first.manifest.config.format ?? 'jsonl') as DerivedFormat | 'jsonl';
  if (format !== 'jsonl') await checkInputsUnchanged(first.manifest, format);

  await mkdir(outDir, { recursive: true });
  const fileOrder = new Map(first.manifest.inputs.map((input, i) => [input.path, i]));
  const ordered = [...byIndex.entries()].sort(([a], [b]) => a - b).map(([, s]) => s);
  const succeeded = await mergeFile(
    ordered.map((s) => path.join(s.dir, OUTPUT_FILE)),
    path.join(outDir, OUTPUT_FILE),
    fileOrder,
  );
  const failed = await mergeFile(
    ordered.map((s) => path.join(s.dir, ERRORS_FILE)),
    path.join(outDir, ERRORS_FILE),
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
          outDir,
          {
            escapeFormulas: config.escapeFormulas !== false,
            bom: config.bom === true,
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
      })),
    },
    inputs: first.manifest.inputs,
    counts: { rows: succeeded + failed, succeeded, failed, pending: 0, by_category: byCategory },
    usage: sumUsage(ordered.map((s) => s.manifest.usage)),
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
  await writeManifest(path.join(outDir, 'manifest.json'), manifest);
  return { shards: count, succeeded, failed, manifest, derivedFiles };
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
  if (!manifest) throw new MergeError(`${dir}: no readable manifest.json; is it a chatbatch output directory?`);
  const shard = manifest.config.shard as { index: number; count: number } | null | undefined;
  return { dir, manifest, index: shard?.index ?? 0, count: shard?.count ?? 1 };
}

/** File order, line, sample: a row's samples stay together, in sample order. */
type RecordKey = [file: number, line: number, sample: number];

interface Head {
  key: RecordKey;
  line: string;
  next: AsyncIterator<string>;
}

/** Streams the sorted record files into one, in input order; returns the number of records. */
async function mergeFile(sources: readonly string[], target: string, fileOrder: ReadonlyMap<string, number>): Promise<number> {
  const out = await AtomicFile.create(target);
  let written = 0;
  try {
    const heads: Head[] = [];
    for (const source of sources) {
      const next = createInterface({ input: createReadStream(source), crlfDelay: Infinity })[Symbol.asyncIterator]();
      const head = await advance(next, source, fileOrder);
      if (head) heads.push(head);
    }
    while (heads.length > 0) {
      let best = 0;
      for (let i = 1; i < heads.length; i++) if (compare(heads[i]!.key, heads[best]!.key) < 0) best = i;
      const head = heads[best]!;
      out.write(`${head.line}\n`);
      written++;
      const following = await advance(head.next, target, fileOrder);
      if (following) heads[best] = following;
      else heads.splice(best, 1);
    }
    await out.commit();
    return written;
  } catch (error) {
    await out.discard();
    throw error;
  }
}

async function advance(next: AsyncIterator<string>, source: string, fileOrder: ReadonlyMap<string, number>): Promise<Head | null> {
  for (;;) {
    const result = await next.next();
    if (result.done) return null;
    const line = result.value;
    if (line.trim() === '') continue;
    const record = JSON.parse(line) as { file: string; line: number; sample?: number };
    const fileIndex = fileOrder.get(record.file);
    if (fileIndex === undefined) throw new MergeError(`${source}: a record names ${record.file}, which is not among the job's inputs`);
    return { key: [fileIndex, record.line, record.sample ?? 0], line, next };
  }
}

function compare(a: RecordKey, b: RecordKey): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}
