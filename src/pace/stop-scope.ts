import type { AnswerRuleName } from '../http/answer-table.js';
import type { AttemptFailure } from '../http/attempt.js';
import type { FatalCause } from './pacer.js';

/**
 * Refusals about the key or the account (answer-table.ts): every model of the run gets them, so
 * they stop the run whatever model answered. A 401 or a spent balance is the key's, not a model's.
 */
const KEY_RULES: ReadonlySet<AnswerRuleName> = new Set(['account', 'budget-412', 'unauthorized']);

/**
 * Whether an answer that stops a model's rows stops the whole run when it has several models.
 * Only a refusal of the key or account, or an endpoint where nobody answers (no rule: a
 * connection refused or a proxy's refusal before any model was asked) does. The rest is judged
 * on this model's answers and is about it: a model unknown or forbidden to this key (OpenAI's
 * `model_not_found`, Anthropic's `permission_error`), a parameter it does not take (OpenAI's
 * `unsupported_parameter` naming it in `param`), its own rate quota or 429s (providers limit each
 * model on its own: run/model-lanes.ts), its server errors, and the same refusal for its rows
 * one after another.
 */
export function stopsEveryModel(outcome: AttemptFailure, cause: FatalCause): boolean {
  if (cause !== 'endpoint') return false;
  return outcome.rule === undefined || KEY_RULES.has(outcome.rule);
}
