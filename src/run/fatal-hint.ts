import type { AttemptFailure } from '../http/attempt.js';
import { redactSecrets } from '../http/redact.js';

export interface FatalContext {
  baseUrl: string;
  model: string;
  keyName: string;
  keyMask: string;
}

/** What to tell the user when the endpoint refuses requests for a reason no retry can fix. */
export function explainFatal(outcome: AttemptFailure, context: FatalContext): string {
  const facts =
    `HTTP ${outcome.status ?? '-'}, code ${outcome.code}: ${outcome.message}\n` +
    `  base URL: ${context.baseUrl}\n  model:    ${context.model}\n  key:      ${context.keyName} (${context.keyMask})` +
    (outcome.traceId ? `\n  trace id: ${outcome.traceId}` : '');
  return redactSecrets(`the endpoint refuses this configuration, so the run stopped early.\n  ${facts}\n  check: ${advice(outcome)}`);
}

function advice(outcome: AttemptFailure): string {
  if (outcome.status === 401 || outcome.status === 403) {
    return `that ${'the key'} is complete and active and was issued for this base URL; the key is read from the environment variable named above`;
  }
  if (outcome.status === 404) {
    return "the base URL exactly as the provider's console shows it (chatbatch appends /chat/completions) and the model name exactly as listed there";
  }
  return "the account's balance or quota in the provider's console; rows not yet sent stay pending for --resume";
}
