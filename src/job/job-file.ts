import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { NothingSentError } from '../errors.js';
import { REPLY_FORMATS, type ReplyFormat } from '../reply/reply-check.js';
import { OUTPUT_FORMATS, type OutputFormat } from './config.js';
import { headerLabel, headerProblem } from './headers.js';
import { inputFileAsJob, notJson } from './not-a-job-file.js';
import { checkParams, OPTIONAL_PARAMS } from './params.js';

/** The JSON job file as written by a user. Every key is optional; flags fill or override. */
export interface JobFile {
  $schema?: string;
  name?: string;
  description?: string;
  inputs?: string[];
  model?: string;
  base_url?: string;
  api_key_env?: string;
  api_key_file?: string;
  headers?: Record<string, string>;
  system?: string;
  template?: string;
  id_field?: string;
  concurrency?: number;
  max_attempts?: number;
  timeout_ms?: number;
  max_outage_ms?: number;
  rpm?: number;
  tpm?: number;
  max_total_tokens?: number;
  params?: Record<string, unknown>;
  row_params?: boolean;
  out?: string;
  format?: string;
  reply_format?: string;
  reply_schema?: string;
  reply_retries?: number;
  repeat?: number;
}

type FieldKind = 'string' | 'strings' | 'positive-integer' | 'non-negative-integer' | 'boolean' | 'object' | 'headers';

export const JOB_FIELDS: Readonly<Record<keyof JobFile, { kind: FieldKind; doc: string }>> = {
  $schema: { kind: 'string', doc: 'Where editors find this schema (e.g. a file written by `chatbatch schema`); ignored by chatbatch.' },
  name: { kind: 'string', doc: 'Name of the job, recorded in the manifest.' },
  description: { kind: 'string', doc: 'Free text for humans.' },
  inputs: { kind: 'strings', doc: 'Input files or glob patterns (JSONL, CSV), relative to the job file.' },
  model: { kind: 'string', doc: "Model name or ID exactly as the provider's console shows it." },
  base_url: { kind: 'string', doc: "Base URL from the provider's console; requests go to base_url + /chat/completions." },
  api_key_env: { kind: 'string', doc: 'Name of the environment variable holding the API key (default CHATBATCH_API_KEY).' },
  api_key_file: {
    kind: 'string',
    doc: 'File holding the API key (a Docker or Kubernetes secret), relative to the job file; CHATBATCH_API_KEY_FILE and the flags outrank it.',
  },
  headers: {
    kind: 'headers',
    doc: 'Extra request headers for a gateway, e.g. {"x-portkey-provider": "openai", "x-portkey-api-key": "${PORTKEY_API_KEY}"}; ${NAME} is filled from the environment and never written.',
  },
  system: { kind: 'string', doc: 'System message put before each row.' },
  template: { kind: 'string', doc: 'User message template; {{column}} is filled from the row.' },
  id_field: { kind: 'string', doc: 'Field or column holding the row id (default id, then custom_id).' },
  concurrency: { kind: 'positive-integer', doc: 'Most requests in flight at once (default 8).' },
  max_attempts: { kind: 'positive-integer', doc: 'Most HTTP attempts per row (default 5).' },
  timeout_ms: { kind: 'positive-integer', doc: 'Hard limit per attempt, headers and body (default 120000).' },
  max_outage_ms: {
    kind: 'non-negative-integer',
    doc: 'Longest the run waits out an endpoint outage (only 5xx, resets, timeouts) before stopping with exit 3, rows pending (default 300000; 0: no pause).',
  },
  rpm: { kind: 'positive-integer', doc: "Requests-per-minute budget to stay under (the job's: with --shard K/N each shard takes 1/N)." },
  tpm: {
    kind: 'positive-integer',
    doc: "Estimated tokens-per-minute budget to stay under (the job's: with --shard K/N each shard takes 1/N).",
  },
  max_total_tokens: {
    kind: 'positive-integer',
    doc: 'Token budget for the whole output directory, across resumes: no new row is sent once it would be passed; the run stops with exit 4, rows pending. With --shard K/N each shard takes 1/N.',
  },
  params: { kind: 'object', doc: 'Optional request parameters to send (temperature, top_p, max_tokens, ...).' },
  row_params: {
    kind: 'boolean',
    doc: 'Also send the optional parameters an OpenAI Batch line holds in body (temperature, max_tokens, ...); without it only model and messages are sent.',
  },
  out: { kind: 'string', doc: 'Output directory, relative to the current directory.' },
  format: { kind: 'string', doc: 'Extra output format: jsonl (default, only the canonical files), csv, openai-batch.' },
  reply_format: {
    kind: 'string',
    doc: "text (default) or json: parse each reply as JSON (bare, or in one ```json fenced block) into the record's data; a reply that does not parse fails as invalid_reply.",
  },
  reply_schema: {
    kind: 'string',
    doc: "JSON Schema file (draft 2020-12 or draft-07), relative to the job file, that each reply's data must match; implies reply_format json.",
  },
  reply_retries: {
    kind: 'non-negative-integer',
    doc: 'How many times a reply that does not parse or match is sent again; each try is paid (default 1).',
  },
  repeat: {
    kind: 'positive-integer',
    doc: 'Samples per row: each row is sent this many times as independent requests; records carry `sample` (0..N-1) when above 1 (default 1).',
  },
};

export interface JobProblem {
  /** `file` or `file: field` the problem is about. */
  where: string;
  problem: string;
}

export interface LoadedJob {
  file: string;
  dir: string;
  job: JobFile;
}

export class JobFileError extends NothingSentError {
  constructor(
    readonly file: string,
    readonly problems: readonly JobProblem[],
  ) {
    super(`${file}: ${problems.length} problem(s):\n${problems.map((p) => `  ${p.where}: ${p.problem}`).join('\n')}`);
    this.name = 'JobFileError';
  }

  override explain(): string {
    const [only, ...more] = this.problems;
    return only && more.length === 0 ? `${only.where}: ${only.problem}` : this.message;
  }
}

/** Reads and checks a job file. Throws JobFileError listing every problem found. */
export async function loadJobFile(file: string): Promise<LoadedJob> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new JobFileError(file, [
      { where: file, problem: `cannot read the job file (${(error as NodeJS.ErrnoException).code ?? String(error)})` },
    ]);
  }
  const inputFile = inputFileAsJob(file);
  if (inputFile) throw new JobFileError(file, [{ where: file, problem: inputFile }]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new JobFileError(file, [{ where: file, problem: notJson(error as Error) }]);
  }
  const problems = checkJob(parsed, file);
  if (problems.length > 0) throw new JobFileError(file, problems);
  return { file, dir: path.dirname(file), job: parsed as JobFile };
}

export function checkJob(value: unknown, file: string): JobProblem[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [{ where: file, problem: 'a job file must hold a JSON object' }];
  }
  const problems: JobProblem[] = [];
  const fields = JOB_FIELDS as Readonly<Record<string, { kind: FieldKind }>>;
  for (const [key, fieldValue] of Object.entries(value)) {
    const where = `${file}: ${key}`;
    const field = fields[key];
    if (field === undefined) {
      const hint = closestField(key);
      problems.push({ where, problem: `unknown key${hint ? ` (did you mean "${hint}"?)` : ''}` });
      continue;
    }
    const kindProblem = checkKind(fieldValue, field.kind);
    if (kindProblem) problems.push({ where, problem: kindProblem });
  }
  const job = value as Record<string, unknown>;
  if (job.params !== undefined && typeof job.params === 'object') {
    for (const problem of checkParams(job.params)) problems.push({ where: file, problem });
  }
  if (typeof job.headers === 'object' && job.headers !== null) {
    for (const [name, header] of Object.entries(job.headers)) {
      const problem =
        typeof header === 'string' ? headerProblem(name, header.trim()) : `expected a string value, got ${JSON.stringify(header)}`;
      if (problem) problems.push({ where: `${file}: headers ${headerLabel(name)}`, problem });
    }
  }
  if (job.api_key_file !== undefined && job.api_key_env !== undefined) {
    problems.push({ where: `${file}: api_key_file`, problem: 'give api_key_file or api_key_env, not both' });
  }
  if (typeof job.format === 'string' && job.format !== '' && !OUTPUT_FORMATS.includes(job.format as OutputFormat)) {
    problems.push({ where: `${file}: format`, problem: `"${job.format}" is not one of ${OUTPUT_FORMATS.join(', ')}` });
  }
  if (typeof job.reply_format === 'string' && job.reply_format !== '' && !REPLY_FORMATS.includes(job.reply_format as ReplyFormat)) {
    problems.push({ where: `${file}: reply_format`, problem: `"${job.reply_format}" is not one of ${REPLY_FORMATS.join(', ')}` });
  } else if (job.reply_format === 'text' && job.reply_schema !== undefined) {
    problems.push({ where: `${file}: reply_schema`, problem: 'a reply schema checks JSON replies: drop it or set "reply_format": "json"' });
  }
  return problems;
}

function checkKind(value: unknown, kind: FieldKind): string | null {
  switch (kind) {
    case 'string':
      return typeof value === 'string' && value.length > 0 ? null : `expected a non-empty string, got ${JSON.stringify(value)}`;
    case 'strings':
      return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && v.length > 0)
        ? null
        : 'expected a non-empty list of file paths or glob patterns';
    case 'positive-integer':
      return Number.isInteger(value) && (value as number) > 0 ? null : `expected a positive integer, got ${JSON.stringify(value)}`;
    case 'non-negative-integer':
      return Number.isInteger(value) && (value as number) >= 0 ? null : `expected an integer ≥ 0, got ${JSON.stringify(value)}`;
    case 'boolean':
      return typeof value === 'boolean' ? null : `expected true or false, got ${JSON.stringify(value)}`;
    case 'object':
    case 'headers':
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? null : 'expected an object';
  }
}

function closestField(key: string): string | null {
  // A request parameter at the top level (`"temperature": 0.2`) belongs under params.
  const candidates: Array<[compareWith: string, suggest: string]> = [
    ...Object.keys(JOB_FIELDS).map((name): [string, string] => [name, name]),
    ...Object.keys(OPTIONAL_PARAMS).map((name): [string, string] => [name, `params.${name}`]),
  ];
  let best: string | null = null;
  let bestDistance = 3;
  for (const [name, suggest] of candidates) {
    const distance = editDistance(key.toLowerCase(), name);
    if (distance < bestDistance) {
      best = suggest;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}
