import { hash } from 'node:crypto';
import { readRowBatches } from '../input/read-rows.js';
import type { InputRow } from '../input/row.js';
import { rowId } from '../input/row-id.js';
import { inShard, type Shard } from '../input/shard.js';
import { headersIdentity } from '../job/headers.js';
import { referenceOf } from '../reply/reference-answer.js';
import { SeenIds } from '../state/seen-ids.js';
import type { BatchNotes } from './batch-notes.js';
import { buildChatRequest, type ChatRequest, type RequestSettings } from './chat-request.js';
import { type KeepInput, keepInputOf, keptFields } from './keep-input.js';
import { rowToMessages } from './messages.js';
import { bodyFields, withRowParams } from './row-params.js';
import type { RowTask } from './row-task.js';
import { modelKey, sampleFingerprint, sampleKey } from './samples.js';

/** What turning a row into a request takes from the job. */
export interface PrepareSettings extends RequestSettings {
  /** Every model a row is sent to (`model` is the first); absent: `model` alone. */
  models?: readonly string[];
  idField: string | null;
  system: string | null;
  template: string | null;
  /** Send the parameters an OpenAI Batch line holds in `body`. */
  rowParams: boolean;
  /** `--allow-param`: names sent as written, unchecked (job/params.ts). */
  allowParams?: readonly string[] | null;
  /** Only rows whose id hashes to this shard; the others are yielded as `other-shard`. */
  shard: Shard | null;
  /** `--keep-input` as given: which of the row's fields its record carries as `input`. */
  keepInput?: string | readonly string[] | null;
  /** `--expect`: the field holding each row's reference answer; null for none. */
  expect?: string | null;
  /**
   * Build only this model's request (its index in `models`): a lane of the run reads the input
   * for its own model, and the other models' requests would be built and hashed for nothing.
   * Absent: every model's (the dry run and `validate`).
   */
  onlyModel?: number;
}

/** A run's configuration as row-preparation settings: the extra headers as their identity. */
export function prepareSettingsOf(
  config: Omit<PrepareSettings, 'headers'> & { headers: Readonly<Record<string, string>> },
): PrepareSettings {
  return { ...config, headers: headersIdentity(config.headers) };
}

interface RowOrigin {
  id: string;
  file: string;
  line: number;
  input?: Record<string, unknown>;
}

/**
 * One input row, ready: a task to send, or an invalid row (unreadable, duplicate id, a template
 * that cannot be filled, bad row params) that becomes an `invalid_input` record under `key`.
 */
export type PreparedRow =
  | { kind: 'task'; key: string; fingerprint: string; task: RowTask; requests: readonly ChatRequest[] }
  | { kind: 'invalid'; key: string; fingerprint: string; origin: RowOrigin; problem: string; sample?: number | undefined; model?: string }
  | { kind: 'other-shard'; origin: RowOrigin };

/**
 * The one path from input rows to requests, shared by the run, the dry run and `validate`, so
 * they agree on ids, duplicates, invalid rows and request bodies. Tasks carry position -1: the
 * run gives each sample its own (`forSample`).
 */
export async function* prepareRows(
  files: readonly string[],
  settings: PrepareSettings,
  notes: BatchNotes,
  seen: SeenIds = new SeenIds(),
): AsyncGenerator<PreparedRow> {
  for await (const batch of preparedBatches(files, settings, notes, seen)) yield* batch;
}

/**
 * `prepareRows` a batch of the input at a time (readRowBatches), each row prepared as its batch
 * is iterated: the run's lanes read every row through here, and a turn of an async generator a
 * row (its promises and microtasks) cost more than reading the row.
 */
export async function* preparedBatches(
  files: readonly string[],
  settings: PrepareSettings,
  notes: BatchNotes,
  seen: SeenIds = new SeenIds(),
): AsyncGenerator<Iterable<PreparedRow>> {
  const keep = keepInputOf(settings.keepInput);
  for await (const batch of readRowBatches(files)) yield preparedEach(batch, settings, keep, notes, seen);
}

function* preparedEach(batch: Iterable<InputRow>, settings: PrepareSettings, keep: KeepInput, notes: BatchNotes, seen: SeenIds) {
  for (const row of batch) yield prepareRow(row, settings, keep, notes, seen);
}

/**
 * Each row's key as `prepareRows` gives it, without building its request (or its kept input): what
 * a resume's check for dropped rows needs of every input row. A row that would be a task is
 * `{ kind: 'key' }`; the others are what `prepareRows` makes of them.
 */
export async function* prepareRowKeys(
  files: readonly string[],
  settings: PrepareSettings,
  seen: SeenIds = new SeenIds(),
): AsyncGenerator<Exclude<PreparedRow, { kind: 'task' }> | { kind: 'key'; key: string }> {
  for await (const batch of readRowBatches(files)) {
    for (const row of batch) {
      const origin: RowOrigin = { id: rowId(row, settings.idField ?? undefined), file: row.file, line: row.line };
      yield rowHead(row, origin, settings, seen) ?? { kind: 'key', key: origin.id };
    }
  }
}

/** One input row, ready: see PreparedRow. */
function prepareRow(row: InputRow, settings: PrepareSettings, keep: KeepInput, notes: BatchNotes, seen: SeenIds): PreparedRow {
  const input = keptFields(row.fields, keep);
  const origin: RowOrigin = { id: rowId(row, settings.idField ?? undefined), file: row.file, line: row.line, ...(input ? { input } : {}) };
  const head = rowHead(row, origin, settings, seen);
  // An unreadable line always has its head (its invalid row): the test narrows `row` for what follows.
  if (head !== null || row.kind === 'invalid') return head!;
  const messages = rowToMessages(row.fields, { system: settings.system, template: settings.template });
  if (!messages.ok) return invalid(origin, origin.id, messages.problem);
  const body = bodyFields(row.fields, settings.rowParams, settings.allowParams ?? []);
  if (!body.ok) return invalid(origin, origin.id, body.problem);
  notes.add(row, body);
  const params = withRowParams(settings.params, body.params);
  const only = settings.onlyModel;
  const requests = (settings.models ?? [settings.model]).map((model, index) =>
    only === undefined || index === only
      ? buildChatRequest(messages.messages, { baseUrl: settings.baseUrl, model, headers: settings.headers ?? '', params })
      : UNBUILT,
  );
  const request = requests[only ?? 0]!;
  return {
    kind: 'task',
    key: origin.id,
    fingerprint: request.fingerprint,
    requests,
    // A literal, not a spread of `origin`: every task then has the same shape, whatever
    // extra fields a reader's origin carries.
    task: {
      id: origin.id,
      file: origin.file,
      line: origin.line,
      position: -1,
      key: origin.id,
      model: settings.models?.[0] ?? settings.model,
      request,
      input,
      ...(settings.expect ? { reference: referenceOf(row.fields, settings.expect) } : {}),
    },
  };
}

/**
 * What a row is before its request is built, when that decides it: another shard's, a repeated
 * id, an unreadable line, an id a run of several models cannot key; null for a row to build.
 */
function rowHead(
  row: InputRow,
  origin: RowOrigin,
  settings: PrepareSettings,
  seen: SeenIds,
): Exclude<PreparedRow, { kind: 'task' }> | null {
  if (settings.shard && !inShard(origin.id, settings.shard)) return { kind: 'other-shard', origin };
  if (!seen.add(origin.id)) {
    return invalid(origin, `dup:${row.file}:${row.line}`, `duplicate id "${origin.id}": an earlier row has the same id`);
  }
  if (row.kind === 'invalid') return invalid(origin, origin.id, row.problem);
  if ((settings.models?.length ?? 1) > 1 && origin.id.includes('\u0000')) {
    // The journal keys a row's copies for other models by its id, a NUL and the model (samples.ts).
    return invalid(origin, origin.id, NUL_ID_PROBLEM);
  }
  return null;
}

/** In place of a request a lane's reader does not build (PrepareSettings.onlyModel): never sent, never read. */
const UNBUILT = Object.freeze({}) as ChatRequest;

/**
 * Why a row whose id holds a NUL is invalid in a run with several models (samples.ts keys the
 * other models' copies by the id, a NUL and the model); dropped-rows.ts knows it by this text.
 */
export const NUL_ID_PROBLEM = 'the id holds a NUL character (U+0000), which a run with several models keeps for its own keys';

/** A row that becomes an `invalid_input` record under `key`. */
function invalid(origin: RowOrigin, key: string, problem: string): Extract<PreparedRow, { kind: 'invalid' }> {
  return { kind: 'invalid', key, fingerprint: `invalid:${shortHash(problem)}`, origin, problem };
}

/** Where one copy of a row goes: a model of the run's (by its index) and a sample (`--repeat`). */
export interface RowTarget {
  models: readonly string[];
  modelIndex: number;
  sample: number | undefined;
  /** The model whose copies keep the row's own key (samples.ts keyModelOf); the first model when absent. */
  keyModel?: string;
}

/**
 * The copy of a prepared row for `target`, at `position`: the row itself when the run has one
 * model and no samples; else its key, request and fingerprint for that model and sample.
 */
export function forTarget(
  prepared: Exclude<PreparedRow, { kind: 'other-shard' }>,
  target: RowTarget,
  position: number,
): Exclude<PreparedRow, { kind: 'other-shard' }> {
  const { models, modelIndex, sample } = target;
  const keyModel = target.keyModel ?? models[0]!;
  if (sample === undefined && modelIndex === 0 && models[0] === keyModel) {
    // The row is its own only copy: its task (a new one per row) is placed, not copied.
    if (prepared.kind === 'task') prepared.task.position = position;
    return prepared;
  }
  const model = models[modelIndex]!;
  const key = sampleKey(modelKey(prepared.key, model, keyModel), sample);
  if (prepared.kind === 'invalid') return { ...prepared, key, sample, model };
  const modelRequest = prepared.requests[modelIndex]!;
  const fingerprint = sampleFingerprint(modelRequest.fingerprint, sample);
  const request = { ...modelRequest, fingerprint };
  const { id, file, line, input, reference } = prepared.task;
  const task: RowTask = { id, file, line, position, key, model, request, sample, input };
  if (reference !== undefined) task.reference = reference;
  return { kind: 'task', key, fingerprint, task, requests: prepared.requests };
}

function shortHash(text: string): string {
  return hash('sha256', text).slice(0, 16);
}
