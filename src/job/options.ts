import { DEFAULT_CONNECT_TIMEOUT_MS } from '../http/time-limits.js';
import { DEFAULT_REPLY_RETRIES, REPLY_FORMATS } from '../reply/reply-check.js';
import { OUTPUT_FORMATS } from '../state/file-names.js';

/**
 * Every setting of a run, in one table: its command-line flag, its job-file key, its kind of
 * value, its default and its help. The yargs options of `chatbatch run`, the job file's keys and
 * JSON Schema, the library's options and the resolved configuration all come from here, so a
 * new setting is one row (and, when its resolution depends on other settings, a line in
 * config.ts).
 */

export type ValueKind =
  | 'string'
  | 'strings'
  | 'models'
  | 'fields'
  | 'positive-integer'
  | 'non-negative-integer'
  | 'positive-number'
  | 'boolean'
  | 'headers'
  | 'params';

export interface OptionSpec {
  readonly kind: ValueKind;
  /** The command-line flag, without `--`; absent for job-file-only keys. */
  readonly flag?: string;
  readonly alias?: string;
  /** The job file key; absent for command-line-only flags. */
  readonly job?: string;
  readonly choices?: readonly string[];
  /** For a list: what its items are, for messages. */
  readonly items?: string;
  /** For a list: what an empty one means (--retry-failed alone: all); without it, a list may not be empty. */
  readonly emptyMeans?: string;
  readonly default?: string | number | boolean;
  /** A job-file key without a flag that the library's run() takes too. */
  readonly library?: true;
  /** Resolved by hand in config.ts: it depends on the environment, paths or other settings. */
  readonly custom?: true;
  /** The flag's help line (the default is added to it). */
  readonly help?: string;
  /** The job key's description in the JSON Schema. */
  readonly doc?: string;
  /** `ms`: a duration in milliseconds, at most MAX_DURATION_MS (see there). */
  readonly unit?: 'ms';
  /** The largest value it takes, for an option whose unit sets none (see maximumOf). */
  readonly maximum?: number;
  /**
   * The flag always takes the next argument as its value, even one that starts with `-`, so
   * `--shard -1/2` reaches its check instead of being read as the short flags -1, -/ and -2.
   */
  readonly valueMayStartWithDash?: true;
  /** A list flag given once per item (`--allow-param a --allow-param b`), never eating the next argument. */
  readonly repeatable?: true;
}

/**
 * The longest duration any option takes, about 24.9 days: Node's timers take at most 2^31-1 ms
 * and fire after 1 ms for anything larger, so `--timeout-ms 2147483648` would abort every attempt
 * at once (each one possibly billed). One rule for every option whose unit is `ms`.
 */
export const MAX_DURATION_MS = 2 ** 31 - 1;

/** The largest value an option accepts, or undefined for none. */
export function maximumOf(spec: OptionSpec): number | undefined {
  return spec.unit === 'ms' ? MAX_DURATION_MS : spec.maximum;
}

/**
 * Most samples per row. Each sample is a row of its own everywhere (journal, results, progress);
 * a row's samples are admitted in one go and agree in one table, so a count beyond any
 * evaluation's needs (2^32 overflowed the positions, 10^9 the heap, 10^7 made a SIGTERM wait 18 s
 * for one row's samples) is refused before anything is sent.
 */
export const MAX_REPEAT = 10_000;

/** The largest dollar budget, a billion: far past any batch, so a larger figure is a slip of the keyboard. */
export const MAX_COST_USD = 1_000_000_000;

export const RUN_OPTIONS = {
  schema: {
    job: '$schema',
    kind: 'string',
    doc: 'Where editors find this schema (e.g. a file written by `chatbatch schema`); ignored by chatbatch.',
  },
  jobName: { job: 'name', kind: 'string', custom: true, doc: 'Name of the job, recorded in the manifest.' },
  description: { job: 'description', kind: 'string', doc: 'Free text for humans.' },
  inputs: {
    job: 'inputs',
    kind: 'strings',
    items: 'file paths or glob patterns',
    custom: true,
    doc: 'Input files or glob patterns (JSONL, CSV), relative to the job file.',
  },
  model: {
    flag: 'model',
    job: 'model',
    kind: 'models',
    repeatable: true,
    custom: true,
    help: "Model name exactly as the provider's console shows it; repeat it to send every row to each model (docs/evaluation.md)",
    doc: "Model name or ID exactly as the provider's console shows it; a list sends every row to each model, in this order.",
  },
  models: {
    job: 'models',
    kind: 'strings',
    items: 'model names',
    custom: true,
    library: true,
    doc: 'The models every row is sent to, in this order (the same as a list in model); records are in input order, then this order.',
  },
  baseUrl: {
    flag: 'base-url',
    job: 'base_url',
    kind: 'string',
    custom: true,
    help: "Base URL from the provider's console (env CHATBATCH_BASE_URL)",
    doc: "Base URL from the provider's console; requests go to base_url + /chat/completions.",
  },
  out: {
    flag: 'out',
    job: 'out',
    kind: 'string',
    custom: true,
    help: 'Output directory',
    doc: 'Output directory, relative to the current directory.',
  },
  apiKeyEnv: {
    flag: 'api-key-env',
    job: 'api_key_env',
    kind: 'string',
    custom: true,
    help: 'Environment variable holding the API key (default CHATBATCH_API_KEY)',
    doc: 'Name of the environment variable holding the API key (default CHATBATCH_API_KEY).',
  },
  apiKeyFile: {
    flag: 'api-key-file',
    job: 'api_key_file',
    kind: 'string',
    custom: true,
    help: 'File holding the API key, e.g. a Docker or Kubernetes secret (env CHATBATCH_API_KEY_FILE)',
    doc: 'File holding the API key (a Docker or Kubernetes secret), relative to the job file; CHATBATCH_API_KEY_FILE and the flags outrank it.',
  },
  headers: {
    flag: 'header',
    alias: 'H',
    job: 'headers',
    kind: 'headers',
    custom: true,
    help: "Extra request header, curl's form 'Name: value' (repeatable); ${NAME} is filled from the environment, never written",
    doc: 'Extra request headers for a gateway, e.g. {"x-portkey-provider": "openai", "x-portkey-api-key": "${PORTKEY_API_KEY}"}; ${NAME} is filled from the environment and never written.',
  },
  params: {
    job: 'params',
    kind: 'params',
    custom: true,
    library: true,
    doc: "Request parameters to send as given (temperature, seed, reasoning_effort, a vendor's top_k, ...); known ones are checked for their type, stream and tools are refused, a near-miss of a known name is refused as a typo.",
  },
  allowParams: {
    flag: 'allow-param',
    job: 'allow_params',
    kind: 'strings',
    items: 'parameter names',
    repeatable: true,
    help: 'Send this parameter as written even though its name is one or two letters from a known one, or its value is not of the known type (repeatable)',
    doc: 'Parameter names sent as written, unchecked: a name one or two letters from a known one (otherwise refused as a typo), or a known one whose value is outside its known type.',
  },
  rowParams: {
    flag: 'row-params',
    job: 'row_params',
    kind: 'boolean',
    default: false,
    help: 'Send the parameters OpenAI Batch lines hold in body (temperature, seed, max_tokens, ...), checked like --param',
    doc: 'Also send the parameters an OpenAI Batch line holds in body (temperature, seed, max_tokens, ...), checked like params; without it only model and messages are sent.',
  },
  keepInput: {
    flag: 'keep-input',
    job: 'keep_input',
    kind: 'fields',
    help: "Each record carries the row's own fields as input: all, or the fields named (comma-separated: --keep-input question,expected)",
    doc: 'Each record carries the row\'s own fields as `input`: "all", or a list of field (column) names.',
  },
  system: {
    flag: 'system',
    job: 'system',
    kind: 'string',
    help: 'System message put before every row',
    doc: 'System message put before each row.',
  },
  template: {
    flag: 'template',
    job: 'template',
    kind: 'string',
    help: "User message template, e.g. 'Describe {{name}}'",
    doc: 'User message template; {{column}} is filled from the row.',
  },
  idField: {
    flag: 'id-field',
    job: 'id_field',
    kind: 'string',
    help: 'Field or column holding the row id',
    doc: 'Field or column holding the row id (default id, then custom_id).',
  },
  concurrency: {
    flag: 'concurrency',
    job: 'concurrency',
    kind: 'positive-integer',
    help: 'Most requests in flight, a hard ceiling (default: derived from the pace the endpoint allows, up to 256)',
    doc: 'Most requests in flight at once, a hard ceiling. Without it the run derives it from the pace the endpoint allows (rate x latency), up to 256.',
  },
  maxAttempts: {
    flag: 'max-attempts',
    job: 'max_attempts',
    kind: 'positive-integer',
    default: 5,
    help: 'Most attempts per row',
    doc: 'Most HTTP attempts per row.',
  },
  timeoutMs: {
    flag: 'timeout-ms',
    unit: 'ms',
    job: 'timeout_ms',
    kind: 'positive-integer',
    // The official SDKs' default (openai-node, openai-python: 10 minutes): reasoning models and
    // queued requests (DeepSeek keeps one open 10-30 minutes) take this long. A dead endpoint is
    // found by --connect-timeout-ms instead.
    default: 600_000,
    help: 'Hard limit per attempt: connecting, headers and the whole body',
    doc: 'Hard limit per attempt: connecting, headers and the whole body.',
  },
  connectTimeoutMs: {
    flag: 'connect-timeout-ms',
    unit: 'ms',
    job: 'connect_timeout_ms',
    kind: 'positive-integer',
    default: DEFAULT_CONNECT_TIMEOUT_MS,
    help: 'Longest wait for a connection (TCP and TLS, to the endpoint or the proxy): a host that never answers fails this fast',
    doc: 'Longest wait for a connection (TCP and TLS, to the endpoint or the proxy), so a host that never answers fails fast.',
  },
  headersTimeoutMs: {
    flag: 'headers-timeout-ms',
    unit: 'ms',
    job: 'headers_timeout_ms',
    kind: 'positive-integer',
    help: 'Longest wait from sending a request to the response headers (default: --timeout-ms alone; most servers send headers only with the finished reply, so set it only when yours answers sooner)',
    doc: 'Longest wait from sending a request to the response headers (default: none apart from timeout_ms). Most servers send headers only with the finished reply; set it only for one that answers sooner (DeepSeek sends headers at once, then blank lines while queued).',
  },
  rowDeadlineMs: {
    flag: 'row-deadline-ms',
    unit: 'ms',
    kind: 'positive-integer',
    default: 15 * 60_000,
    help: 'Overall limit per row, retries included',
  },
  maxRetryWaitMs: {
    flag: 'max-retry-wait-ms',
    unit: 'ms',
    kind: 'non-negative-integer',
    default: 60_000,
    help: 'Longest retry-after a server may impose before the row fails',
  },
  graceMs: {
    flag: 'grace-ms',
    unit: 'ms',
    kind: 'non-negative-integer',
    default: 10_000,
    help: 'On Ctrl-C, how long in-flight requests may finish',
  },
  // Longer than a gateway's restart or a deploy takes (seconds to a couple of minutes), shorter
  // than a scheduled job can afford to sit idle unnoticed: past it, exit 3 says so and --resume
  // continues.
  maxOutageMs: {
    flag: 'max-outage-ms',
    unit: 'ms',
    job: 'max_outage_ms',
    kind: 'non-negative-integer',
    default: 5 * 60_000,
    help: 'Longest the run waits out an endpoint outage (only 5xx, resets, timeouts) before stopping with exit 3, rows pending; 0: no pause',
    doc: 'Longest the run waits out an endpoint outage (only 5xx, resets, timeouts) before stopping with exit 3, rows pending; 0 means no pause.',
  },
  rpm: {
    flag: 'rpm',
    job: 'rpm',
    kind: 'positive-integer',
    help: "Requests-per-minute budget (the job's: each of N shards takes 1/N)",
    doc: "Requests-per-minute budget to stay under (the job's: with --shard K/N each shard takes 1/N).",
  },
  tpm: {
    flag: 'tpm',
    job: 'tpm',
    kind: 'positive-integer',
    help: "Estimated tokens-per-minute budget (the job's: each of N shards takes 1/N)",
    doc: "Estimated tokens-per-minute budget to stay under (the job's: with --shard K/N each shard takes 1/N).",
  },
  maxTotalTokens: {
    flag: 'max-total-tokens',
    job: 'max_total_tokens',
    kind: 'positive-integer',
    help: 'Token budget for the output directory, across resumes: stop sending new rows before passing it (exit 4, rows pending; --resume with a larger budget goes on)',
    doc: 'Token budget for the whole output directory, across resumes: no new row is sent once it would be passed; the run stops with exit 4, rows pending. With --shard K/N each shard takes 1/N.',
  },
  maxCost: {
    flag: 'max-cost',
    job: 'max_cost',
    kind: 'positive-number',
    maximum: MAX_COST_USD,
    help: "Dollar budget for the output directory, across resumes, estimated from token usage and the model's price: stop sending new rows before passing it (exit 4, rows pending; --resume with a larger budget goes on)",
    doc: "Budget in US dollars for the whole output directory, across resumes, estimated from token usage and the model's price (see price): no new row is sent once it would be passed; the run stops with exit 4, rows pending. With --shard K/N each shard takes 1/N.",
  },
  price: {
    flag: 'price',
    job: 'price',
    kind: 'strings',
    items: 'prices (IN/OUT or MODEL=IN/OUT)',
    repeatable: true,
    help: 'Price in US dollars per million input/output tokens, IN/OUT for every model or MODEL=IN/OUT (repeatable; IN/OUT/CACHED prices cached input); default: the price table of @pydantic/genai-prices',
    doc: 'Prices in US dollars per million input/output tokens: "IN/OUT" for every model, or "MODEL=IN/OUT" ("IN/OUT/CACHED" prices cached input tokens); over the price table of @pydantic/genai-prices.',
  },
  resume: {
    flag: 'resume',
    kind: 'boolean',
    custom: true,
    help: 'Continue the run in --out, skipping settled rows',
  },
  allowDroppedRows: {
    flag: 'allow-dropped-rows',
    kind: 'boolean',
    default: false,
    help: "With --resume: go on even when this run's inputs no longer hold rows the earlier run settled (their records are dropped)",
  },
  retryFailed: {
    flag: 'retry-failed',
    kind: 'strings',
    items: 'failure categories',
    emptyMeans: 'all',
    custom: true,
    help: 'With --resume: re-run failed rows (all, or categories e.g. rate_limited server_error)',
  },
  force: { flag: 'force', kind: 'boolean', default: false, help: 'Discard an earlier run in --out and start over' },
  cache: { flag: 'cache', kind: 'string', custom: true, help: 'Response cache directory (reproducible re-runs)' },
  format: {
    flag: 'format',
    job: 'format',
    kind: 'string',
    choices: OUTPUT_FORMATS,
    default: 'jsonl',
    help: 'Also write output.csv/errors.csv (csv), batch-output.jsonl/batch-errors.jsonl (openai-batch) or output.parquet/errors.parquet (parquet)',
    doc: 'Extra output format: jsonl (only the canonical files), csv, openai-batch, parquet.',
  },
  escapeFormulas: {
    flag: 'escape-formulas',
    kind: 'boolean',
    default: true,
    help: 'CSV: escape the cells the model or server wrote, and header cells, that a spreadsheet would run as formulas; your input cells stay verbatim (default on; --no-escape-formulas turns it off)',
  },
  bom: { flag: 'bom', kind: 'boolean', default: false, help: 'CSV: start with a UTF-8 BOM for Excel' },
  replyFormat: {
    flag: 'reply-format',
    job: 'reply_format',
    kind: 'string',
    choices: REPLY_FORMATS,
    custom: true,
    help: "json: parse each reply as JSON (bare or in a ```json block) into the record's data; a reply that does not parse fails as invalid_reply (default text)",
    doc: "text (default) or json: parse each reply as JSON (bare, or in one ```json fenced block) into the record's data; a reply that does not parse fails as invalid_reply.",
  },
  replySchema: {
    flag: 'reply-schema',
    job: 'reply_schema',
    kind: 'string',
    custom: true,
    help: "JSON Schema file (draft 2020-12 or draft-07) each reply's data must match; implies --reply-format json",
    doc: "JSON Schema file (draft 2020-12 or draft-07), relative to the job file, that each reply's data must match; implies reply_format json.",
  },
  replyRetries: {
    flag: 'reply-retries',
    job: 'reply_retries',
    kind: 'non-negative-integer',
    default: DEFAULT_REPLY_RETRIES,
    help: 'How many times a reply that does not parse or match is sent again; each try is paid',
    doc: 'How many times a reply that does not parse or match is sent again; each try is paid.',
  },
  expect: {
    flag: 'expect',
    job: 'expect',
    kind: 'string',
    help: "Field or column holding each row's reference answer: records get correct (true, false, or null when nothing could be judged)",
    doc: "Field (column) holding each row's reference answer: each record gets `correct`, true or false, or null when the row has no reference or no reply (see docs/evaluation.md).",
  },
  grade: {
    flag: 'grade',
    job: 'grade',
    kind: 'string',
    default: 'exact',
    help: 'With --expect: how a reply is compared with the reference: exact, includes, regex:PATTERN, number[:TOLERANCE] (number:0.01, number:1%) or choice (docs/evaluation.md)',
    doc: 'With `expect`: how a reply is compared with the reference: `exact`, `includes` (as whole words), `regex:PATTERN` (its first capture group), `number` or `number:TOLERANCE` (the last number; `number:0.01`, `number:1%`), `choice` (the letter of a multiple-choice answer); see docs/evaluation.md.',
  },
  judge: {
    flag: 'judge',
    job: 'judge',
    kind: 'string',
    help: "With --expect: a MODEL that judges each reply against the reference (GRADE: C or I) into the record's judge; its requests paced in a lane of their own, journaled, cached and priced apart (docs/evaluation.md)",
    doc: "With `expect`: a model that judges each reply against the row's reference answer; its verdict (`GRADE: C` or `I`, null when unreadable) is the record's `judge.verdict`; its requests are paced in a lane of their own, journaled, cached and priced apart (see docs/evaluation.md).",
  },
  judgeTemplate: {
    flag: 'judge-template',
    job: 'judge_template',
    kind: 'string',
    custom: true,
    help: "With --judge: a text file replacing the built-in rubric; {{reply}}, {{expected}}, {{question}} and the row's fields are filled in",
    doc: "With `judge`: a text file, relative to the job file, replacing the built-in rubric: `{{reply}}`, `{{expected}}`, `{{question}}` and the row's fields are filled in; it must ask for `GRADE: C` or `GRADE: I`.",
  },
  shard: {
    flag: 'shard',
    kind: 'string',
    valueMayStartWithDash: true,
    custom: true,
    help: 'K/N: take only the rows whose id hashes to K (0..N-1); join shards with chatbatch merge',
  },
  limit: {
    flag: 'limit',
    kind: 'positive-integer',
    help: 'Send only the first N rows (of this shard), to try a job on a few before the rest: the others stay pending (exit 4); the same command with --resume instead of --limit does the rest',
  },
  repeat: {
    flag: 'repeat',
    job: 'repeat',
    kind: 'positive-integer',
    default: 1,
    maximum: MAX_REPEAT,
    help: 'Send each row N times as independent samples (at most 10000); records carry sample 0..N-1',
    doc: 'Samples per row: each row is sent this many times as independent requests; records carry `sample` (0..N-1) when above 1.',
  },
} as const satisfies Record<string, OptionSpec>;

type Options = typeof RUN_OPTIONS;
export type OptionName = keyof Options;

type KindValue<S> = S extends { choices: readonly (infer C)[] }
  ? C
  : S extends { kind: 'string' }
    ? string
    : S extends { kind: 'strings' }
      ? string[]
      : S extends { kind: 'models' }
        ? string | string[]
        : S extends { kind: 'positive-integer' | 'non-negative-integer' | 'positive-number' }
          ? number
          : S extends { kind: 'boolean' }
            ? boolean
            : S extends { kind: 'fields' }
              ? string | string[]
              : S extends { kind: 'params' }
                ? Record<string, unknown>
                : never;

/** `--header 'Name: value'` on the command line, `{"Name": "value"}` in the job file. */
type FlagValue<S> = S extends { kind: 'headers' } ? string[] : KindValue<S>;
type JobValue<S> = S extends { kind: 'headers' } ? Record<string, string> : KindValue<S>;

/** The settings as given on the command line (or to the library's run()); undefined means "not given". */
export type RunFlags = { inputs: string[] } & {
  [K in OptionName as Options[K] extends { flag: string } ? K : Options[K] extends { library: true } ? K : never]?:
    | FlagValue<Options[K]>
    | undefined;
};

/** The JSON job file as written by a user. Every key is optional; flags fill or override. */
export type JobFile = {
  [K in OptionName as Options[K] extends { job: infer J extends string } ? J : never]?: JobValue<Options[K]>;
};

type PlainName = {
  [K in OptionName]: Options[K] extends { flag: string } ? (Options[K] extends { custom: true } ? never : K) : never;
}[OptionName];

/** The settings resolved by precedence alone (flag, then job file, then default; null for none). */
export type PlainSettings = {
  [K in PlainName]: KindValue<Options[K]> | (Options[K] extends { default: unknown } ? never : null);
};

/**
 * What is wrong with a value for this option, or null when it fits. A job file's strings may not
 * be empty; a flag's may (`--system ''` overrides the job's system message with an empty one).
 */
export function valueProblem(value: unknown, spec: OptionSpec, from: 'job' | 'flag' = 'job'): string | null {
  switch (spec.kind) {
    case 'string':
      if (typeof value !== 'string') return `expected a non-empty string, got ${JSON.stringify(value)}`;
      if (spec.choices) return spec.choices.includes(value) ? null : `"${value}" is not one of ${spec.choices.join(', ')}`;
      return value.length === 0 && from === 'job' ? `expected a non-empty string, got ""` : null;
    case 'strings':
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) return `expected a list of ${spec.items ?? 'strings'}`;
      // An empty list, or empty items, mean something only where the option says what (--retry-failed: all).
      return spec.emptyMeans !== undefined || (value.length > 0 && value.every((item) => item.length > 0))
        ? null
        : `expected a non-empty list of ${spec.items ?? 'strings'}`;
    case 'models':
      if (typeof value === 'string') return value.length > 0 ? null : 'expected a non-empty string, got ""';
      return Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string' && item.length > 0)
        ? null
        : `expected a model name or a non-empty list of model names, got ${JSON.stringify(value)}`;
    case 'positive-integer':
      if (!Number.isSafeInteger(value) || (value as number) <= 0) return `expected a positive integer, got ${JSON.stringify(value)}`;
      return aboveMaximum(value as number, spec);
    case 'non-negative-integer':
      if (!Number.isSafeInteger(value) || (value as number) < 0) return `expected an integer ≥ 0, got ${JSON.stringify(value)}`;
      return aboveMaximum(value as number, spec);
    case 'positive-number':
      return typeof value === 'number' && Number.isFinite(value) && value > 0
        ? aboveMaximum(value, spec)
        : `expected a number above 0, got ${JSON.stringify(value)}`;
    case 'boolean':
      return typeof value === 'boolean' ? null : `expected true or false, got ${JSON.stringify(value)}`;
    case 'fields':
      if (typeof value === 'string' && (value === 'all' || from === 'flag')) return null;
      return Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string' && item.length > 0)
        ? null
        : `expected "all" or a non-empty list of field names, got ${JSON.stringify(value)}`;
    case 'headers':
      // `--header 'Name: value'` (repeatable) on the command line and in the library; an object in a job file.
      if (from === 'flag') {
        return Array.isArray(value) && value.every((item) => typeof item === 'string') ? null : "expected a list of 'Name: value' strings";
      }
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? null : 'expected an object';
    case 'params':
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? null : 'expected an object';
  }
}

/** "at most 2147483647 ms (about 24.8 days)" when `value` is past the option's maximum, else null. */
export function aboveMaximum(value: number, spec: OptionSpec): string | null {
  const max = maximumOf(spec);
  if (max === undefined || value <= max) return null;
  return `at most ${max}${spec.unit === 'ms' ? ` ms (about ${(max / 86_400_000).toFixed(1)} days, the longest a timer can wait)` : ''}, got ${value}`;
}

const ENTRIES = Object.entries(RUN_OPTIONS) as Array<[OptionName, OptionSpec]>;

/** Every option the library's run() takes: those with a flag, and a few job-file keys. */
export function libraryOptions(): Array<[OptionName, OptionSpec]> {
  return ENTRIES.filter(([, spec]) => spec.flag !== undefined || spec.library);
}

/** Every option with a flag, as [name, spec]. */
export function flagOptions(): Array<[OptionName, OptionSpec & { flag: string }]> {
  return ENTRIES.filter((entry): entry is [OptionName, OptionSpec & { flag: string }] => entry[1].flag !== undefined);
}

/** Every option with a job file key, as [name, spec]. */
export function jobOptions(): Array<[OptionName, OptionSpec & { job: string }]> {
  return ENTRIES.filter((entry): entry is [OptionName, OptionSpec & { job: string }] => entry[1].job !== undefined);
}

/**
 * The settings that follow precedence alone: the flag, else the job file's key, else the
 * default (null when there is none).
 */
export function resolvePlainSettings(flags: Readonly<Record<string, unknown>>, job: Readonly<Record<string, unknown>>): PlainSettings {
  const settings: Record<string, unknown> = {};
  for (const [name, spec] of flagOptions()) {
    if (spec.custom) continue;
    settings[name] = flags[name] ?? (spec.job === undefined ? undefined : job[spec.job]) ?? spec.default ?? null;
  }
  return settings as PlainSettings;
}

/** An option's description for the job file's schema, with its default. */
export function describeOption(spec: OptionSpec): string {
  return `${(spec.doc ?? spec.help ?? '').replace(/\.$/, '')}${defaultNote(spec)}.`;
}

/** An option's help line for the command line, with its default. */
export function optionHelp(spec: OptionSpec): string {
  return `${spec.help ?? spec.doc ?? ''}${defaultNote(spec)}`;
}

/** ` (default X)`; nothing for an option without one or a switch (off unless given). */
function defaultNote(spec: OptionSpec): string {
  const max = maximumOf(spec);
  const notes = [
    ...(spec.default === undefined || spec.kind === 'boolean' ? [] : [`default ${spec.default}`]),
    ...(max === undefined ? [] : [`at most ${max}`]),
  ];
  return notes.length === 0 ? '' : ` (${notes.join(', ')})`;
}
