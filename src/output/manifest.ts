import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { ManifestCost } from '../cost/cost-summary.js';
import type { SessionModelCost } from '../cost/earlier-cost.js';
import { TOOL_VERSION } from '../http/tool-version.js';
import { fileChunks } from '../input/file-chunks.js';
import type { ManifestJudge } from '../judge/judge-manifest.js';
import type { UsageTotals } from '../record/usage-totals.js';
import { readRegularFile } from '../state/regular-file.js';
import { writeFileAtomic } from './atomic-file.js';
import { isManifestShaped } from './manifest-shape.js';
import type { RowCounts } from './row-counts.js';

/**
 * `error`: the run stopped on an error it could not turn into a record (see the session's `error`); resumable.
 * `write_failed`: a write failed (disk full, I/O error); what settled is kept, resume once fixed.
 * `stopped_at_limit`: the token budget refused the next row; rows pending, resume with a larger budget.
 */
export type RunStatus =
  | 'running'
  | 'complete'
  | 'finished_with_failures'
  | 'interrupted'
  | 'aborted'
  | 'error'
  | 'write_failed'
  | 'stopped_at_limit';

export interface InputSummary {
  path: string;
  /** null when the file could no longer be read at the end of the run (`problem` says why). */
  size: number | null;
  sha256: string | null;
  rows: number;
  problem?: string;
}

/**
 * Which journal lines a running session's figures in the manifest cover: those before `bytes`
 * of the journal named `journal` (run/killed-session.ts journalGeneration).
 */
export interface UsageJournalMark {
  journal: string | null;
  bytes: number;
}

export interface RunSession {
  started_at: string;
  ended_at: string | null;
  status: RunStatus;
  resumed: boolean;
  attempts: number;
  rows_settled: number;
  rows_reused: number;
  rows_rerun_changed: number;
  rows_rerun_failed: number;
  /** Tokens of the responses this session received (cached replies and reused rows cost nothing). */
  usage?: UsageTotals;
  /** US dollars this session's responses cost, estimated from their usage; null when the price is unknown. */
  cost_usd?: number | null;
  /** The same by model, with the tokens priced: a later session prices them at the model's own price when it was unknown here. */
  cost_by_model?: Record<string, SessionModelCost>;
  /**
   * While the session runs: the journal lines its usage and dollars cover (run/killed-session.ts),
   * so a resume after a kill -9 adds the lines after them. Removed when the session ends.
   */
  usage_journal?: UsageJournalMark;
  /** Status `error` only: what stopped the run, one line. */
  error?: string;
  /** Rate-limit 429s this session took: they paced the run and never failed a row. */
  rate_limited?: number;
  /** The provider's limits this session learned from response headers (limit per window, and the header). */
  limits_learned?: Array<{ judge?: true; model?: string; unit: string; limit: number; window_ms: number; rate: string; source: string }>;
}

export interface Manifest {
  tool: { name: 'chatbatch'; version: string };
  node: string;
  status: RunStatus;
  job: string | null;
  /** Identifies what was asked (inputs by content, model, base URL, prompt settings, shard count, repeat): shards of one job share it. */
  job_fingerprint: string;
  config: Record<string, unknown>;
  /**
   * With several models, or a model that is not the directory's first: the model whose records
   * keep their rows' own journal keys (request/samples.ts keyModelOf). Absent: `config.model`.
   */
  key_model?: string;
  inputs: InputSummary[];
  counts: RowCounts;
  /** Tokens over every session (absent in manifests written before it was kept). */
  usage?: UsageTotals;
  /** Dollars over every session, estimated from token usage (absent in manifests written before it was kept). */
  cost?: ManifestCost;
  /** With --judge: the judge's model, rubric, tokens and dollars, apart from the models' (src/judge/judge-manifest.ts). */
  judge?: ManifestJudge;
  started_at: string;
  ended_at: string | null;
  attempts_total: number;
  resumes: number;
  sessions: RunSession[];
  files: { output: string; errors: string };
}

/** The manifest, or null when it cannot be read, is not JSON, or lacks the fields readers rely on. */
export async function readManifest(file: string): Promise<Manifest | null> {
  try {
    const value: unknown = JSON.parse(await readRegularFile(file));
    return isManifestShaped(value) ? (value as Manifest) : null;
  } catch {
    return null;
  }
}

/** The models a manifest's run sent to, in order: `config.models`, else `config.model`. */
export function manifestModels(config: Readonly<Record<string, unknown>>): string[] {
  const { models, model } = config;
  if (Array.isArray(models) && models.every((name) => typeof name === 'string')) return models;
  return typeof model === 'string' ? [model] : [];
}

export function writeManifest(file: string, manifest: Manifest): Promise<void> {
  return writeFileAtomic(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

/**
 * Files hashed at the same time. Each holds a file handle and a 256 KiB read buffer: describing
 * every input at once ran out of file handles (EMFILE) at a few thousand files and took 600 MB
 * for 2,000 of them. A few at a time keeps both bounded and the disk busy.
 */
const DESCRIBE_CONCURRENCY = 4;

/**
 * Every input's summary, in the order given, at most DESCRIBE_CONCURRENCY files open at once.
 * Aborting `signal` stops the reading (the summaries are then not to be used).
 */
export async function describeInputs(
  paths: readonly string[],
  rowsOf: (path: string) => number,
  signal?: AbortSignal,
): Promise<InputSummary[]> {
  const summaries: InputSummary[] = new Array(paths.length);
  let next = 0;
  const describeNext = async (): Promise<void> => {
    while (next < paths.length && !signal?.aborted) {
      const index = next++;
      summaries[index] = await describeInput(paths[index]!, rowsOf(paths[index]!), signal);
    }
  };
  await Promise.all(Array.from({ length: Math.min(DESCRIBE_CONCURRENCY, paths.length) }, describeNext));
  return summaries;
}

/**
 * A file that vanished or became unreadable during the run was already recorded row by row by
 * its reader; the manifest says so instead of failing the run at its last step.
 */
export async function describeInput(path: string, rows: number, signal?: AbortSignal): Promise<InputSummary> {
  try {
    const { size } = await stat(path);
    const hash = createHash('sha256');
    for await (const chunk of fileChunks(path)) {
      signal?.throwIfAborted();
      hash.update(chunk);
    }
    return { path, size, sha256: hash.digest('hex'), rows };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return { path, size: null, sha256: null, rows, problem: `could not be read at the end of the run (${code})` };
  }
}

export function jobFingerprint(parts: {
  inputs: readonly InputSummary[];
  model: string;
  baseUrl: string;
  params: Readonly<Record<string, unknown>>;
  system: string | null;
  template: string | null;
  idField: string | null;
  shardCount: number;
  /** Samples per row; left out at 1 so a job's fingerprint stays what it was before `--repeat`. */
  repeat?: number;
  /**
   * What shapes the requests and records beyond the prompt: the extra headers as written, row
   * params, the reply format and schema. Each is left out at its default, so a job that uses none
   * keeps the fingerprint it had before they existed.
   */
  headers?: string;
  rowParams?: boolean;
  replyFormat?: string;
  replySchemaSha256?: string | null;
}): string {
  const canonical = JSON.stringify([
    parts.inputs.map((input) => [input.path, input.sha256]),
    parts.model,
    parts.baseUrl,
    Object.entries(parts.params).sort(),
    parts.system,
    parts.template,
    parts.idField,
    parts.shardCount,
    ...(parts.repeat !== undefined && parts.repeat > 1 ? [parts.repeat] : []),
    ...(parts.headers ? [{ headers: parts.headers }] : []),
    ...(parts.rowParams ? [{ rowParams: true }] : []),
    ...(parts.replyFormat && parts.replyFormat !== 'text'
      ? [{ replyFormat: parts.replyFormat, schema: parts.replySchemaSha256 ?? null }]
      : []),
  ]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}

export function toolInfo(): Manifest['tool'] {
  return { name: 'chatbatch', version: TOOL_VERSION };
}
