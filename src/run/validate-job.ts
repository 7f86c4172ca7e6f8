import path from 'node:path';
import { formatCostRange, modelsCostRange } from '../cost/cost-range.js';
import { formatUsd, priceWords } from '../cost/cost-summary.js';
import { loadPriceBook } from '../cost/price-book.js';
import { parsePriceFlags } from '../cost/price-flag.js';
import { NothingSentError } from '../errors.js';
import { InputError } from '../input/errors.js';
import { expandInputs } from '../input/expand.js';
import { inputProblems } from '../input/preflight.js';
import { checkBaseUrl } from '../job/base-url.js';
import { resolveJobInputs, resolveModels } from '../job/config.js';
import { checkJob, type JobFile, type LoadedJob, NotARegularFile, readJobText } from '../job/job-file.js';
import { inputFileAsJob, notJson } from '../job/not-a-job-file.js';
import { sendableParams } from '../job/params.js';
import { JudgeCounter, judgeEstimateLine } from '../judge/judge-estimate.js';
import { type RunJudge, runJudge } from '../judge/run-judge.js';
import { loadReplySchema, ReplySchemaError } from '../reply/reply-schema.js';
import { BatchNotes } from '../request/batch-notes.js';
import { maxCompletionTokens } from '../request/completion-limit.js';
import { type PrepareSettings, prepareRows } from '../request/prepare.js';

export interface JobValidation {
  /** What to show, one line each: every problem with its field or file:line, notes, and a last line that sums up. */
  lines: string[];
  ok: boolean;
}

/**
 * Checks a job file and every row of its inputs as a run would, sending nothing, and lists every
 * problem at once instead of stopping at the first.
 */
export async function validateJob(jobFile: string, maxProblems: number): Promise<JobValidation> {
  const lines: string[] = [];
  const out = (line: string): void => void lines.push(line);
  let parsed: unknown;
  try {
    const text = await readJobText(jobFile);
    const inputFile = inputFileAsJob(jobFile);
    if (inputFile) {
      out(`${jobFile}: ${inputFile}`);
      return { lines, ok: false };
    }
    parsed = JSON.parse(text);
  } catch (error) {
    const problem =
      error instanceof SyntaxError
        ? notJson(error)
        : error instanceof NotARegularFile
          ? error.message
          : `cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    out(`${jobFile}: ${problem}`);
    return { lines, ok: false };
  }
  // Go on past a bad key: the point is to list every problem at once.
  const problems: string[] = checkJob(parsed, jobFile).map((p) => `${p.where}: ${p.problem}`);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    for (const problem of problems) out(problem);
    return { lines, ok: false };
  }
  const job = parsed as JobFile;
  const loaded = { file: jobFile, dir: path.dirname(jobFile), job };
  if (typeof job.base_url === 'string') {
    const checked = checkBaseUrl(job.base_url);
    if (!checked.ok) problems.push(`${jobFile}: base_url: ${checked.problem}`);
  }
  if (typeof job.reply_schema === 'string' && job.reply_schema !== '') {
    // Compiled as a run compiles it, so a schema that would stop the run is found here.
    const [schemaFile] = resolveJobInputs([job.reply_schema], loaded, process.cwd());
    await loadReplySchema(schemaFile!).catch((error: unknown) => {
      if (!(error instanceof ReplySchemaError)) throw error;
      problems.push(`${jobFile}: reply_schema: ${error.message}`);
    });
  }
  const models = jobModels(job, jobFile, problems);
  if (!job.inputs) problems.push(`${jobFile}: inputs: missing (give them here or on the command line when running)`);

  const judge = await jobJudge(job, loaded, problems);
  const counted = { rows: 0, badRows: 0, promptTokens: 0 };
  const batchNotes = new BatchNotes(models ?? null);
  if (Array.isArray(job.inputs) && job.inputs.every((input) => typeof input === 'string')) {
    // Each pattern on its own: one that matches nothing is a problem, not a reason to skip the others' rows.
    const files: string[] = [];
    const seenFiles = new Set<string>();
    for (const pattern of resolveJobInputs(job.inputs, loaded, process.cwd())) {
      try {
        for (const file of await expandInputs([pattern])) {
          if (seenFiles.has(path.resolve(file))) continue;
          seenFiles.add(path.resolve(file));
          files.push(file);
        }
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        problems.push(`${jobFile}: inputs: ${error.message}`);
      }
    }
    // The same check a run makes before its first request; a file that fails it is not read.
    const unusable = new Set<string>();
    for (const { file, problem } of await inputProblems(files)) {
      unusable.add(file);
      problems.push(`${jobFile}: inputs: ${problem}`);
    }
    const usable = files.filter((file) => !unusable.has(file));
    await readRows(usable, job, { counted, problems, batchNotes, maxProblems, judge: judge?.counter ?? null, jobFile });
  }
  const { rows, badRows, promptTokens } = counted;
  const cost = await costEstimate(job, jobFile, { promptTokens, rows: rows - badRows, models });
  problems.push(...cost.problems);
  for (const problem of problems) out(problem);
  if (cost.line) out(cost.line);
  if (judge) out(judgeEstimateLine(judge.counter.estimate(judge.setup.model, judge.setup.book)));
  if (badRows > maxProblems) out(`... and ${badRows - maxProblems} more invalid row(s)`);
  for (const notice of [batchNotes.unsentNotice(), batchNotes.otherModelNotice()]) if (notice) out(`note: ${notice}`);
  const total = problems.length - Math.min(badRows, maxProblems) + badRows;
  out(
    total === 0
      ? `${jobFile}: ok (${rows} row(s)${requestsNote(job, models, rows)})`
      : `${jobFile}: ${total} problem(s), ${rows} row(s) read`,
  );
  return { lines, ok: total === 0 };
}

/** Reads every row as a run would: counted, the invalid ones listed (up to maxProblems), the judge's requests counted. */
async function readRows(
  files: string[],
  job: JobFile,
  into: {
    counted: { rows: number; badRows: number; promptTokens: number };
    problems: string[];
    batchNotes: BatchNotes;
    maxProblems: number;
    judge: JudgeCounter | null;
    jobFile: string;
  },
): Promise<void> {
  const { counted, problems } = into;
  try {
    for await (const row of prepareRows(files, rowSettingsOf(job), into.batchNotes)) {
      counted.rows++;
      if (row.kind === 'task') {
        counted.promptTokens += row.task.request.estimatedTokens;
        into.judge?.add(row.task);
      }
      if (row.kind !== 'invalid') continue;
      counted.badRows++;
      if (counted.badRows <= into.maxProblems) problems.push(`${row.origin.file}:${row.origin.line}: ${row.problem}`);
    }
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    problems.push(`${into.jobFile}: inputs: ${error.message}`);
  }
}

/**
 * The job's judge (`judge`), loaded as a run loads it (its rubric file, its price), with a counter
 * of the requests it would get; a problem for what would stop the run; null without a judge.
 */
async function jobJudge(job: JobFile, loaded: LoadedJob, problems: string[]): Promise<{ setup: RunJudge; counter: JudgeCounter } | null> {
  if (typeof job.judge !== 'string' || job.judge === '') return null;
  const [template] = typeof job.judge_template === 'string' ? resolveJobInputs([job.judge_template], loaded, process.cwd()) : [null];
  try {
    const setup = await runJudge({
      judge: job.judge,
      judgeTemplate: template ?? null,
      keepInput: job.keep_input ?? null,
      baseUrl: typeof job.base_url === 'string' ? job.base_url : '',
      price: Array.isArray(job.price) ? job.price : null,
      maxCost: typeof job.max_cost === 'number' ? job.max_cost : null,
    });
    if (!setup) return null;
    const repeat = Number.isSafeInteger(job.repeat) && job.repeat! > 1 ? job.repeat! : 1;
    const models = (job.models ?? [job.model].flat()).filter((model) => typeof model === 'string').length || 1;
    return { setup, counter: new JudgeCounter(setup.template, repeat * models) };
  } catch (error) {
    if (!(error instanceof NothingSentError)) throw error;
    problems.push(`${loaded.file}: judge: ${error.message}`);
    return null;
  }
}

/** The job's models by run's rules (a problem each as run would say it); undefined when it names none. */
function jobModels(job: JobFile, jobFile: string, problems: string[]): string[] | undefined {
  const modelProblems: string[] = [];
  const found = resolveModels({}, job, modelProblems);
  if (found.length === 0) problems.push(`${jobFile}: model: missing (give it here or with --model when running)`);
  else problems.push(...modelProblems.map((problem) => `${jobFile}: ${problem}`));
  return found.length > 0 ? found : undefined;
}

/** `, 3 models × 2 samples each: 12 request(s)`; nothing when each row is one request. */
function requestsNote(job: JobFile, models: readonly string[] | undefined, rows: number): string {
  const repeat = Number.isSafeInteger(job.repeat) && job.repeat! > 1 ? job.repeat! : 1;
  const modelCount = models?.length ?? 1;
  const each = [modelCount > 1 ? `${modelCount} models` : '', repeat > 1 ? `${repeat} samples` : ''].filter(Boolean).join(' × ');
  return each === '' ? '' : `, ${each} each: ${rows * repeat * modelCount} request(s)`;
}

/**
 * What the job's valid rows could cost, as a dry run says it (prompts alone, and with every
 * completion at max_tokens), and a `max_cost` that cannot be kept because the model has no price.
 */
async function costEstimate(
  job: JobFile,
  jobFile: string,
  counted: { promptTokens: number; rows: number; models: readonly string[] | undefined },
): Promise<{ line: string | null; problems: string[] }> {
  const models = counted.models?.filter((model) => typeof model === 'string' && model !== '') ?? [];
  if (models.length === 0) return { line: null, problems: [] };
  const flags = parsePriceFlags(Array.isArray(job.price) ? job.price : null);
  const books = await Promise.all(
    models.map((model) => loadPriceBook(model, typeof job.base_url === 'string' ? job.base_url : '', flags.prices)),
  );
  const unknown = books.find((book) => book.perMillion === null)?.model;
  if (unknown !== undefined) {
    const problems =
      typeof job.max_cost === 'number'
        ? [`${jobFile}: max_cost: needs the price of ${unknown}, which the price table does not know: give "price": ["${unknown}=IN/OUT"]`]
        : [];
    return { line: `estimated cost: unknown (no price for ${unknown}: give "price": ["${unknown}=IN/OUT"])`, problems };
  }
  const repeat = Number.isSafeInteger(job.repeat) && job.repeat! > 1 ? job.repeat! : 1;
  const params = typeof job.params === 'object' && job.params !== null && !Array.isArray(job.params) ? job.params : {};
  const range = modelsCostRange(books, {
    promptTokens: counted.promptTokens * repeat,
    requests: counted.rows * repeat,
    completionPerRequest: maxCompletionTokens(params),
  });
  return { line: `estimated cost: ${formatCostRange(range, formatUsd)}; prices: ${priceWords(books)}`, problems: [] };
}

/** The job's row settings as a run would take them (without flags); what is not set or not valid is left out. */
function rowSettingsOf(job: JobFile): PrepareSettings {
  const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  return {
    idField: text(job.id_field),
    system: text(job.system),
    template: text(job.template),
    rowParams: job.row_params === true,
    allowParams: Array.isArray(job.allow_params) ? job.allow_params : null,
    shard: null,
    baseUrl: text(job.base_url) ?? '',
    model: (job.models ?? [job.model].flat()).find((model) => typeof model === 'string') ?? '',
    params: sendableParams(job.params, Array.isArray(job.allow_params) ? job.allow_params : []),
    expect: text(job.expect),
  };
}
