import { simulatedJudgeReply } from './judge.js';
import { quizAnswer, quizReply } from './quiz.js';
import { fnv1a, type SimMessage, simulatedReply } from './reply.js';

/**
 * The simulator's JSON answers (a request's `response_format`, or `[[sim:json]]`): the same
 * request body always gets the same value. Without a schema the value has a fixed shape,
 * `{"label": "positive"|"negative"|"neutral", "score": 0..0.99}`; for `json_schema` it is made
 * to fit the schema: every property (required or not), simple types, enum and const, numeric
 * and length bounds, local `$ref`s. Not a general schema solver: `pattern`, `not` and the like
 * are left to chance.
 */
export const SENTIMENT_LABELS = ['positive', 'negative', 'neutral'] as const;

/**
 * Most characters a JSON answer may take (about: each value counts its text and a few for its
 * punctuation). A schema asking for more (`minLength: 1e9`, nested `minItems`) is refused with a
 * 400 naming `response_format` instead of being built: any local client could otherwise take the
 * simulator down with one request.
 */
export const MAX_JSON_ANSWER_CHARS = 1_000_000;

/** A `response_format` schema whose smallest answer is larger than MAX_JSON_ANSWER_CHARS. */
export class SchemaTooLargeError extends Error {
  override name = 'SchemaTooLargeError';
  constructor() {
    super(`the response_format schema asks for a value larger than the simulator makes (at most ${MAX_JSON_ANSWER_CHARS} characters)`);
  }
}

/** Throws SchemaTooLargeError when the schema asks for more than MAX_JSON_ANSWER_CHARS. */
export function simulatedJson(body: string, schema?: unknown): unknown {
  const seed = new Seed(fnv1a(body));
  if (schema === undefined) return { label: seed.pick(SENTIMENT_LABELS), score: seed.fraction() };
  return valueFor(schema, schema, seed, 0);
}

/** How a request asks for JSON: null for text, else the schema when it gives one. */
export function requestedJson(responseFormat: unknown): { schema?: unknown } | null {
  if (typeof responseFormat !== 'object' || responseFormat === null) return null;
  const { type, json_schema: jsonSchema } = responseFormat as { type?: unknown; json_schema?: { schema?: unknown } };
  if (type === 'json_object') return {};
  if (type === 'json_schema')
    return typeof jsonSchema?.schema === 'object' && jsonSchema.schema !== null ? { schema: jsonSchema.schema } : {};
  return null;
}

const MAX_DEPTH = 8;

class Seed {
  private left = MAX_JSON_ANSWER_CHARS;

  constructor(private state: number) {}

  /** Counts `chars` more of the answer against its bound. */
  spend(chars: number): void {
    this.left -= chars;
    if (this.left < 0) throw new SchemaTooLargeError();
  }

  next(): number {
    this.state = fnv1a(String(this.state));
    return this.state;
  }

  pick<T>(choices: readonly T[]): T {
    return choices[this.next() % choices.length]!;
  }

  /** 0, 0.01, ... 0.99. */
  fraction(): number {
    return (this.next() % 100) / 100;
  }
}

type Schema = Record<string, unknown>;

function valueFor(schema: unknown, root: unknown, seed: Seed, depth: number): unknown {
  if (typeof schema !== 'object' || schema === null || depth > MAX_DEPTH) return null;
  seed.spend(4);
  const s = schema as Schema;
  if (typeof s.$ref === 'string') return valueFor(resolveLocal(s.$ref, root), root, seed, depth + 1);
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return seed.pick(s.enum);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = s[key];
    if (Array.isArray(options) && options.length > 0 && !s.type) return valueFor(options[0], root, seed, depth + 1);
  }
  const types = Array.isArray(s.type) ? s.type : [s.type];
  const type = types.find((t) => t !== 'null') ?? types[0] ?? (s.properties ? 'object' : s.items ? 'array' : 'string');
  switch (type) {
    case 'object': {
      const value: Record<string, unknown> = {};
      const properties = typeof s.properties === 'object' && s.properties !== null ? (s.properties as Record<string, unknown>) : {};
      for (const [name, property] of Object.entries(properties)) value[name] = valueFor(property, root, seed, depth + 1);
      for (const name of Array.isArray(s.required) ? s.required : []) if (typeof name === 'string' && !(name in value)) value[name] = 'sim';
      return value;
    }
    case 'array': {
      const count = Math.min(Math.max(numberOr(s.minItems, 1), 0), numberOr(s.maxItems, Infinity));
      const items: unknown[] = [];
      // One at a time, each counted: `minItems: 1e9` is refused, not allocated.
      while (items.length < count) items.push(valueFor(s.items ?? {}, root, seed, depth + 1));
      return items;
    }
    case 'number':
    case 'integer': {
      const low = numberOr(s.minimum, numberOr(s.exclusiveMinimum, type === 'integer' ? -1 : 0) + (type === 'integer' ? 1 : 0.01));
      const high = numberOr(s.maximum, numberOr(s.exclusiveMaximum, type === 'integer' ? 101 : 1.01) - (type === 'integer' ? 1 : 0.01));
      const value = low + seed.fraction() * Math.max(high - low, 0);
      return type === 'integer' ? Math.round(value) : Math.round(value * 100) / 100;
    }
    case 'boolean':
      return seed.next() % 2 === 0;
    case 'null':
      return null;
    default: {
      if (s.format === 'date-time') return new Date(Date.UTC(2026, 0, 1 + (seed.next() % 365))).toISOString();
      if (s.format === 'date') return new Date(Date.UTC(2026, 0, 1 + (seed.next() % 365))).toISOString().slice(0, 10);
      const text = `sim-${seed.next().toString(16).padStart(8, '0')}`;
      const min = numberOr(s.minLength, 0);
      const max = numberOr(s.maxLength, Infinity);
      seed.spend(Math.max(min, text.length));
      return text.padEnd(min, 'x').slice(0, max);
    }
  }
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** `#/$defs/name`, `#/definitions/name` and other JSON pointers into the same schema. */
function resolveLocal(ref: string, root: unknown): unknown {
  if (!ref.startsWith('#')) return null;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null) return null;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** What a request's replies depend on: its body, messages, parameters and which sample it is. */
export interface ReplyRequest {
  body: string;
  messages: ReadonlyArray<SimMessage>;
  /** The request's `temperature` and `response_format`, as sent. */
  temperature: unknown;
  responseFormat: unknown;
  /** Which sample of a row this request is: stable across a row's retries, different between its samples. */
  sampleSeed: string;
  /** The model asked: on a quiz (`[[sim:answer=...]]`, quiz.ts) each model is right on its own rows. */
  model?: string;
}

/**
 * Every choice's content (`n` of them). At temperature 0 (or none) a request always gets the
 * same replies. Above 0 a sample may answer differently, more often the higher the temperature
 * (half the samples at 1, all at 2), deterministically per row and sample, so self-consistency
 * (`--repeat`) can be rehearsed. When JSON is asked, every choice is JSON.
 */
export function simulatedChoices(request: ReplyRequest, count: number): string[] {
  const asked = requestedJson(request.responseFormat);
  const judged = asked ? null : simulatedJudgeReply(request.messages);
  if (judged !== null) return Array.from({ length: count }, () => judged);
  const answer = asked ? null : quizAnswer(request.messages);
  return Array.from({ length: count }, (_, choice) => {
    const variant = variantOf(request, choice);
    if (answer !== null) return quizReply(answer, request.messages, request.model ?? '', variant + choice * 8);
    if (asked) {
      const seedText = choice === 0 && variant === 0 ? request.body : `${request.body}\u0000${choice}\u0000${variant}`;
      return JSON.stringify(simulatedJson(seedText, asked.schema));
    }
    return simulatedReply(request.messages, choice, variant);
  });
}

/** 0 for the request's usual answer; else which other answer this sample (and choice) gives. */
function variantOf(request: ReplyRequest, choice: number): number {
  const temperature = typeof request.temperature === 'number' && request.temperature > 0 ? request.temperature : 0;
  if (temperature === 0) return 0;
  const draw = fnv1a(`${request.sampleSeed}\u0000${choice}`);
  return (draw % 1000) / 1000 < Math.min(1, temperature / 2) ? 1 + (draw % 7) : 0;
}

/**
 * The sample seed of a request from chatbatch: its X-Client-Request-Id without the attempt
 * number (`cb-<row and sample hash>-<attempt>`); a request without one is its own sample.
 */
export function sampleSeedOf(clientRequestId: string | string[] | undefined, sequence: number): string {
  const id = Array.isArray(clientRequestId) ? clientRequestId[0] : clientRequestId;
  return id ? id.replace(/-\d+$/, '') : `request-${sequence}`;
}
