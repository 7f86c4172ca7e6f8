import { checkParams } from '../job/params.js';
import { ownField } from './own-field.js';

/**
 * What an OpenAI Batch line holds in `body` besides `messages`: `model` and request parameters
 * (`temperature`, `seed`, `max_tokens`, ...). The spec's rule is that only model and messages are
 * sent unless the user opts in, so the parameters are sent only with `--row-params` (job:
 * `"row_params": true`), as given and checked by the same rules as the job's `params`
 * (job/params.ts); the run's model is always the one sent. Without the opt-in, the fields are
 * named (batch-notes.ts), never dropped silently.
 */
export type BodyFields =
  | {
      ok: true;
      /** Parameters to send; null when there are none (or no opt-in). */
      params: Record<string, unknown> | null;
      /** Fields of `body` not sent (no opt-in), in the line's order. */
      unsent: string[];
      /** `body.model` when it is a string. */
      model: string | null;
    }
  | { ok: false; problem: string };

const NOTHING: BodyFields = Object.freeze({ ok: true, params: null, unsent: Object.freeze([]) as unknown as string[], model: null });

export function bodyFields(fields: Readonly<Record<string, unknown>>, optIn: boolean, allowed: readonly string[] = []): BodyFields {
  const body = ownField(fields, 'body');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return NOTHING;
  const model = ownField(body, 'model');
  const modelName = typeof model === 'string' ? model : null;
  // Object.entries, then fromEntries: a "__proto__" key stays an own field and never becomes a prototype.
  const extra = Object.entries(body).filter(([name]) => name !== 'model' && name !== 'messages');
  if (extra.length === 0) return { ok: true, params: null, unsent: [], model: modelName };
  if (!optIn) return { ok: true, params: null, unsent: extra.map(([name]) => name), model: modelName };
  const params = Object.fromEntries(extra);
  const problems = checkParams(params, 'body', allowed);
  if (problems.length > 0) return { ok: false, problem: problems.join('; ') };
  return { ok: true, params, unsent: [], model: modelName };
}

/** The job's params with a row's own on top: the row's value wins for a parameter both name. */
export function withRowParams(
  jobParams: Readonly<Record<string, unknown>>,
  rowParams: Record<string, unknown> | null,
): Readonly<Record<string, unknown>> {
  return rowParams === null ? jobParams : { ...jobParams, ...rowParams };
}
