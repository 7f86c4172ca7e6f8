import { createHash } from 'node:crypto';
import { fileChunks } from '../input/file-chunks.js';
import { readFile, stat } from 'node:fs/promises';
import type { FailureCategory } from './record.js';
import { TOOL_VERSION } from './tool-version.js';
import { writeFileAtomic } from './atomic-file.js';

/** `write_failed`: a write failed (disk full, I/O error); what settled is kept, resume once fixed. */
export type RunStatus = 'running' | 'complete' | 'finished_with_failures' | 'interrupted' | 'aborted' | 'write_failed';

export interface InputSummary {
  path: string;
  size: number;
  sha256: string;
  rows: number;
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
}

export interface Manifest {
  tool: { name: 'chatbatch'; version: string };
  node: string;
  status: RunStatus;
  job: string | null;
  /** Identifies what was asked (inputs by content, model, base URL, prompt settings, shard count): shards of one job share it. */
  job_fingerprint: string;
  config: Record<string, unknown>;
  inputs: InputSummary[];
  counts: {
    rows: number;
    succeeded: number;
    failed: number;
    pending: number;
    by_category: Partial<Record<FailureCategory, number>>;
  };
  started_at: string;
  ended_at: string | null;
  attempts_total: number;
  resumes: number;
  sessions: RunSession[];
  files: { output: string; errors: string };
}

export async function readManifest(file: string): Promise<Manifest | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Manifest;
  } catch {
    return null;
  }
}

export function writeManifest(file: string, manifest: Manifest): Promise<void> {
  return writeFileAtomic(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

export async function describeInput(path: string, rows: number): Promise<InputSummary> {
  const { size } = await stat(path);
  const hash = createHash('sha256');
  for await (const chunk of fileChunks(path)) hash.update(chunk);
  return { path, size, sha256: hash.digest('hex'), rows };
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
}): string {
  const canonical = JSON.stringify([
    parts.inputs.map((input) => [input.path, input.sha256]),
    parts.model, parts.baseUrl, Object.entries(parts.params).sort(), parts.system, parts.template, parts.idField, parts.shardCount,
  ]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}

export function toolInfo(): Manifest['tool'] {
  return { name: 'chatbatch', version: TOOL_VERSION };
}
