import path from 'node:path';
import { NothingSentError } from '../errors.js';
import { nearestName } from '../input/nearest-name.js';
import { parseGrader } from '../reply/grader.js';
import { NotARegularFileError, readRegularFile } from '../state/regular-file.js';
import { headerLabel, headerProblem } from './headers.js';
import { inputFileAsJob, notJson } from './not-a-job-file.js';
import { type JobFile, jobOptions, type OptionSpec, valueProblem } from './options.js';
import { KNOWN_PARAMS } from './param-table.js';
import { allowedParamsProblems, checkParams } from './params.js';

export type { JobFile } from './options.js';

/** The job file's keys, each with its kind of value (and choices, default) and its description. */
export const JOB_FIELDS: ReadonlyMap<string, OptionSpec & { job: string }> = new Map(jobOptions().map(([, spec]) => [spec.job, spec]));

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

export class NotARegularFile extends Error {}

/**
 * The job file's text, without a byte order mark (what Windows editors put first in "UTF-8"
 * files, not part of the JSON). A FIFO, a device or a folder is refused before it is opened:
 * reading a FIFO waits for a writer forever.
 */
export async function readJobText(file: string): Promise<string> {
  let text: string;
  try {
    text = await readRegularFile(file);
  } catch (error) {
    if (error instanceof NotARegularFileError) throw new NotARegularFile(`is ${error.kind}: give a job file (JSON)`);
    throw error;
  }
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

/** Reads and checks a job file. Throws JobFileError listing every problem found. */
export async function loadJobFile(file: string): Promise<LoadedJob> {
  let text: string;
  try {
    text = await readJobText(file);
  } catch (error) {
    if (error instanceof NotARegularFile) throw new JobFileError(file, [{ where: file, problem: error.message }]);
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
  for (const [key, fieldValue] of Object.entries(value)) {
    const where = `${file}: ${key}`;
    const field = JOB_FIELDS.get(key);
    if (field === undefined) {
      const hint = closestField(key);
      problems.push({ where, problem: `unknown key${hint ? ` (did you mean "${hint}"?)` : ''}` });
      continue;
    }
    const kindProblem = valueProblem(fieldValue, field);
    if (kindProblem) problems.push({ where, problem: kindProblem });
  }
  const job = value as Record<string, unknown>;
  const allowed = Array.isArray(job.allow_params) ? job.allow_params.filter((name) => typeof name === 'string') : [];
  for (const problem of allowedParamsProblems(allowed)) problems.push({ where: `${file}: allow_params`, problem });
  if (job.params !== undefined && typeof job.params === 'object') {
    for (const problem of checkParams(job.params, 'params', allowed)) problems.push({ where: file, problem });
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
  // Only what the job alone gets wrong: `expect` may come from the command line (config.ts checks the whole).
  if (typeof job.grade === 'string') {
    const parsed = parseGrader(job.grade);
    if (typeof parsed === 'string') problems.push({ where: `${file}: grade`, problem: parsed });
  }
  if (job.reply_format === 'text' && job.reply_schema !== undefined) {
    problems.push({ where: `${file}: reply_schema`, problem: 'a reply schema checks JSON replies: drop it or set "reply_format": "json"' });
  }
  return problems;
}

function closestField(key: string): string | null {
  // A request parameter at the top level (`"temperature": 0.2`) belongs under params.
  const suggestions = new Map<string, string>([
    ...[...JOB_FIELDS.keys()].map((name): [string, string] => [name, name]),
    ...Object.keys(KNOWN_PARAMS).map((name): [string, string] => [name, `params.${name}`]),
  ]);
  const nearest = nearestName(key, suggestions.keys());
  return nearest === null ? null : suggestions.get(nearest)!;
}
