import path from 'node:path';
import { parsePriceFlags } from '../cost/price-flag.js';
import { NothingSentError } from '../errors.js';
import { type ProxyChoice, proxyFor } from '../http/proxy-env.js';
import { formatOf } from '../input/formats.js';
import { parseShard, type Shard } from '../input/shard.js';
import { judgeProblems } from '../judge/judge-settings.js';
import { FAILURE_CATEGORIES, type FailureCategory, isFailureCategory } from '../record/categories.js';
import type { Redactor } from '../record/redactor.js';
import { gradeProblems } from '../reply/grader.js';
import type { ReplyFormat } from '../reply/reply-check.js';
import { chooseKeySource, DEFAULT_API_KEY_ENV, readKeyFrom } from './api-key.js';
import { checkBaseUrl, shownBaseUrl } from './base-url.js';
import { resolveHeaders } from './headers.js';
import type { LoadedJob } from './job-file.js';
import { type JobFile, libraryOptions, type PlainSettings, type RunFlags, resolvePlainSettings, valueProblem } from './options.js';
import { allowedParamsProblems, checkParams, mergedParams } from './params.js';

export { DEFAULT_API_KEY_ENV };
export const BASE_URL_ENV = 'CHATBATCH_BASE_URL';
/** The base URL recorded (and fingerprinted) for runs against the built-in simulator. */
export const SIMULATOR_BASE_URL = 'simulator://built-in';

export type { RunFlags } from './options.js';

/** Everything a run needs, resolved with precedence flags > environment > job file > defaults. */
export interface RunConfig extends PlainSettings {
  jobName: string | null;
  jobFile: string | null;
  inputs: string[];
  /** The models every row is sent to, in the order given (one for most runs; docs/evaluation.md). */
  models: readonly string[];
  /** The first of `models`: the run's model when it has one, and its manifest's `model`. */
  model: string;
  baseUrl: string;
  requestUrl: string;
  /** The variable the key was read from; null when it came from a file. */
  apiKeyEnv: string | null;
  /** The file the key was read from (as given); null when it came from a variable. */
  apiKeyFile: string | null;
  /** The secret. Never serialised: see `publicConfig`. */
  apiKey: string;
  /** Extra request headers as written (`${NAME}` unexpanded): recorded, shown and fingerprinted. */
  headers: Record<string, string>;
  /** The same headers as sent: values filled from the environment are secrets. Never serialised. */
  sentHeaders: Record<string, string>;
  /** The values the environment filled into headers, for redaction. Never serialised. */
  headerSecrets: string[];
  /** The forward proxy from HTTPS_PROXY / HTTP_PROXY (NO_PROXY applied); its password is masked by `publicConfig`. */
  proxy: ProxyChoice | null;
  params: Record<string, unknown>;
  outDir: string;
  resume: boolean;
  /** Categories of failed rows to run again on resume; empty means none. */
  retryFailed: FailureCategory[] | 'all';
  cacheDir: string | null;
  simulate: boolean;
  /** `--shard K/N`: only rows whose id hashes to K; null for the whole input. */
  shard: Shard | null;
  replyFormat: ReplyFormat;
  /** The reply schema's path, relative to the current directory; null for none. */
  replySchema: string | null;
  /** `--judge-template`: the judge's rubric file, relative to the current directory; null for the built-in one. */
  judgeTemplate: string | null;
}

export class ConfigError extends NothingSentError {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }

  override explain(): string {
    const [only, ...more] = this.problems;
    return more.length === 0
      ? `cannot start the run: ${only}`
      : `cannot start the run:\n${this.problems.map((p) => `  - ${p}`).join('\n')}`;
  }
}

export interface ResolveContext {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Set when `--simulate` started a local endpoint: its URL replaces any configured one. */
  simulatorUrl?: string;
  /** A dry run sends nothing, so it needs neither a key nor an output directory. */
  dryRun?: boolean;
}

export function resolveRunConfig(flags: RunFlags, job: LoadedJob | null, context: ResolveContext): RunConfig {
  const j = job?.job ?? {};
  checkLibraryOptions(flags);
  const plain = resolvePlainSettings(flags, j);
  const problems: string[] = [];

  const inputs = flags.inputs.length > 0 ? flags.inputs : resolveJobInputs(j.inputs ?? [], job, context.cwd);
  if (inputs.length === 0) problems.push('no inputs: give input files or globs, or "inputs" in the job file');

  const models = resolveModels(flags, j, problems);

  const endpoint = resolveEndpoint(flags, j, context, problems);
  const key = resolveKey(flags, job, context, problems);

  const headers = resolveHeaders(flags.headers, j.headers, context.env);
  problems.push(...headers.problems);

  const params = mergedParams(flags.params, j.params) as Record<string, unknown>;
  const allowed = plain.allowParams ?? [];
  problems.push(...allowedParamsProblems(allowed).map((problem) => `--allow-param ${problem}`), ...checkParams(params, 'params', allowed));

  const out = flags.out ?? (j.out ? relativeToCwd(j.out, context.cwd) : undefined);
  if (!out && !context.dryRun) problems.push('no output directory: give --out DIR or "out" in the job file');

  const retryFailed = parseRetryFailed(flags.retryFailed, problems);
  // --force deletes the journal a resume reads: together they ended in "journal.jsonl: does not exist".
  if (plain.force && (flags.resume || flags.retryFailed !== undefined)) {
    const carryOn = flags.resume ? '--resume' : '--retry-failed';
    problems.push(`${carryOn} carries on the earlier run in --out and --force discards it: give one of them`);
  }
  problems.push(...keepInputProblems(flags.keepInput));

  if (flags.cache !== undefined && flags.cache.trim() === '') {
    problems.push('--cache needs a directory, e.g. --cache .chatbatch-cache (an empty one would turn the cache off silently)');
  }
  const shard = parseShardFlag(flags.shard, problems);
  const reply = resolveReplyFormat(flags, job, context.cwd, problems);
  problems.push(...parsePriceFlags(plain.price).problems);
  problems.push(...gradeProblems(plain.grade, plain.expect));
  const judgeTemplate = flags.judgeTemplate ?? (j.judge_template ? relativeToJob(j.judge_template, job, context.cwd) : null);
  problems.push(...judgeProblems(plain.judge, judgeTemplate, plain));

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    jobName: j.name ?? null,
    jobFile: job?.file ?? null,
    inputs,
    models,
    model: models[0]!,
    ...endpoint,
    ...key,
    headers: headers.headers.shown,
    sentHeaders: headers.headers.sent,
    headerSecrets: headers.headers.secrets,
    ...plain,
    params,
    outDir: out ?? '',
    // Re-running failures only makes sense on an earlier run, so --retry-failed implies --resume.
    resume: (flags.resume ?? false) || flags.retryFailed !== undefined,
    retryFailed,
    cacheDir: flags.cache ?? null,
    simulate: context.simulatorUrl !== undefined,
    shard,
    ...reply,
    judgeTemplate,
  };
}

type JobFields = LoadedJob['job'];

/** The CLI's parser has checked its flags already; the library's options are checked here. */
/**
 * The models: `--model` (repeatable) over the job's `model` (a name or a list) or `models`. The
 * same model twice would send every row to it twice: refused, like a duplicate id. `validate`
 * reads a job file's models with the same rules (`flags` empty).
 */
export function resolveModels(flags: Pick<RunFlags, 'model' | 'models'>, j: JobFile, problems: string[]): string[] {
  if (j.model !== undefined && j.models !== undefined) problems.push('the job file gives both "model" and "models": keep one');
  const given = flags.model ?? flags.models ?? j.models ?? j.model;
  const models = given === undefined ? [] : [given].flat();
  if (models.length === 0) {
    problems.push('no model: give --model or "model" in the job file (the exact name shown in the provider\'s console)');
  }
  const twice = models.filter((model, index) => models.indexOf(model) !== index);
  if (twice.length > 0) problems.push(`model ${JSON.stringify(twice[0])} is given twice: each model is named once`);
  return models;
}

function checkLibraryOptions(flags: RunFlags): void {
  const problems: string[] = [];
  for (const [name, spec] of libraryOptions()) {
    const value = (flags as Record<string, unknown>)[name];
    if (value === undefined) continue;
    const problem = valueProblem(value, spec, 'flag');
    if (problem) problems.push(`${spec.flag ? `--${spec.flag}` : name}: ${problem}`);
  }
  // What follows reads the values as their kinds: a value of another kind stops here.
  if (problems.length > 0) throw new ConfigError(problems);
}

function resolveEndpoint(
  flags: RunFlags,
  j: JobFields,
  context: ResolveContext,
  problems: string[],
): Pick<RunConfig, 'baseUrl' | 'requestUrl' | 'proxy'> {
  if (context.simulatorUrl) {
    // The built-in simulator listens on a new free port each run. Its port must not be part of
    // the requests' identity, or every --resume would send every row again and the cache
    // would never hit: the base URL (which fingerprints include) names the simulator instead.
    // It is this machine's own process, so it is never reached through a proxy either.
    const requestUrl = `${context.simulatorUrl.replace(/\/+$/, '')}/chat/completions`;
    return { baseUrl: SIMULATOR_BASE_URL, requestUrl, proxy: null };
  }
  const rawBaseUrl = flags.baseUrl ?? context.env[BASE_URL_ENV] ?? j.base_url;
  if (!rawBaseUrl) {
    problems.push(`no base URL: give --base-url, ${BASE_URL_ENV} or "base_url" in the job file (chatbatch has no default endpoint)`);
    return { baseUrl: '', requestUrl: '', proxy: null };
  }
  const checked = checkBaseUrl(rawBaseUrl);
  if (!checked.ok) {
    problems.push(`base URL: ${checked.problem}`);
    return { baseUrl: '', requestUrl: '', proxy: null };
  }
  const found = proxyFor(new URL(checked.requestUrl), context.env);
  if (!found.ok) problems.push(found.problem);
  return { baseUrl: checked.baseUrl, requestUrl: checked.requestUrl, proxy: found.ok ? found.proxy : null };
}

function resolveKey(
  flags: RunFlags,
  job: LoadedJob | null,
  context: ResolveContext,
  problems: string[],
): Pick<RunConfig, 'apiKeyEnv' | 'apiKeyFile' | 'apiKey'> {
  const j = job?.job ?? {};
  const keySource = chooseKeySource(
    { file: flags.apiKeyFile, variable: flags.apiKeyEnv },
    { file: j.api_key_file === undefined ? undefined : relativeToJob(j.api_key_file, job, context.cwd), variable: j.api_key_env },
    context.env,
    problems,
  );
  const optional = context.dryRun === true || context.simulatorUrl !== undefined;
  const key = readKeyFrom(keySource, { env: context.env, cwd: context.cwd, optional });
  if (key.problem) problems.push(key.problem);
  return {
    apiKeyEnv: keySource.variable,
    apiKeyFile: keySource.file,
    apiKey: key.key || (context.simulatorUrl ? 'simulated-key' : ''),
  };
}

function parseShardFlag(value: string | undefined, problems: string[]): Shard | null {
  if (value === undefined) return null;
  const parsed = parseShard(value);
  if (typeof parsed !== 'string') return parsed;
  problems.push(parsed);
  return null;
}

function resolveReplyFormat(
  flags: RunFlags,
  job: LoadedJob | null,
  cwd: string,
  problems: string[],
): Pick<RunConfig, 'replyFormat' | 'replySchema'> {
  const j = job?.job ?? {};
  const replySchema = flags.replySchema ?? (j.reply_schema ? relativeToJob(j.reply_schema, job, cwd) : null);
  // A schema is about JSON replies: giving one asks for them, unless text was asked for outright.
  const replyFormat: ReplyFormat = flags.replyFormat ?? j.reply_format ?? (replySchema ? 'json' : 'text');
  if (replyFormat === 'text' && replySchema) {
    problems.push(`a reply schema (${replySchema}) checks JSON replies: drop it or use --reply-format json`);
  }
  return { replyFormat, replySchema };
}

/** The configuration as recorded in the manifest: no secret, only where the key and header values came from. */
export function publicConfig(config: RunConfig, redactor: Redactor): Record<string, unknown> {
  const { apiKey: _secret, sentHeaders: _sent, headerSecrets: _filled, proxy, models, ...rest } = config;
  return redactor.redactJson({
    ...rest,
    // A one-model run's manifest stays as it was before several models: `model` alone.
    ...(models.length > 1 ? { models } : {}),
    baseUrl: shownBaseUrl(config.baseUrl),
    requestUrl: shownBaseUrl(config.requestUrl),
    proxy: proxy && { url: proxy.shown, variable: proxy.variable },
  });
}

/** How records and messages name the key: its variable, or the file it was read from. */
export function keyName(config: Pick<RunConfig, 'apiKeyEnv' | 'apiKeyFile'>): string {
  return config.apiKeyFile ?? config.apiKeyEnv ?? DEFAULT_API_KEY_ENV;
}

/**
 * `--keep-input data/*.jsonl`: the shell expands the glob after the flag, whose value is then the
 * first file's name, read as the field list, and that file's rows are never read. A field list
 * naming an input file (by its extension: JSONL or CSV) is that mistake, said before anything
 * is sent.
 */
function keepInputProblems(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  const files = value.split(',').filter((name) => formatOf(name.trim()) !== null);
  if (files.length === 0) return [];
  return [
    `--keep-input ${value}: ${files[0]} is an input file, not a field name (a glob after --keep-input gives it the first file); ` +
      'write --keep-input=all (or --keep-input=FIELD,FIELD) before the inputs, or put the inputs first',
  ];
}

function parseRetryFailed(values: string[] | undefined, problems: string[]): FailureCategory[] | 'all' {
  if (values === undefined) return [];
  const names = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (names.length === 0 || names.includes('all')) return 'all';
  const unknown = names.filter((n) => !isFailureCategory(n));
  if (unknown.length > 0) {
    problems.push(
      `--retry-failed: unknown categor${unknown.length > 1 ? 'ies' : 'y'} ${unknown.join(', ')} (accepted: all, ${FAILURE_CATEGORIES.join(', ')})`,
    );
  }
  return names as FailureCategory[];
}

/** Job inputs are relative to the job file; records name them relative to the current directory. */
export function resolveJobInputs(patterns: readonly string[], job: LoadedJob | null, cwd: string): string[] {
  return patterns.map((pattern) => relativeToJob(pattern, job, cwd));
}

function relativeToJob(pattern: string, job: LoadedJob | null, cwd: string): string {
  if (!job || path.isAbsolute(pattern)) return pattern;
  return path.relative(cwd, path.resolve(cwd, job.dir, pattern)) || '.';
}

function relativeToCwd(p: string, cwd: string): string {
  if (path.isAbsolute(p)) return p;
  const relative = path.relative(cwd, path.resolve(cwd, p));
  return relative === '' ? '.' : relative;
}
