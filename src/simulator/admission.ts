import type { ServerResponse } from 'node:http';
import type { SimContext } from './context.js';
import { sendLimited } from './limited.js';
import { admissionCost } from './provider-limits.js';
import type { SimMessage } from './reply.js';
import { promptTokens } from './tokens.js';

/**
 * Passes a valid request through the provider limits: true when it may be answered (it then
 * counts as in flight until its answer is over); false when it was answered 429. Either way the
 * answer carries the limit headers as they stand after this request.
 */
export function admitted(
  context: SimContext,
  request: { model?: unknown; messages: SimMessage[]; max_tokens?: unknown; max_completion_tokens?: unknown; n?: unknown },
  res: ServerResponse,
  requestId: string,
): boolean {
  const { counters } = context;
  const model = typeof request.model === 'string' ? request.model : '';
  const limits = context.modelLimits.get(model) ?? context.limits;
  if (!limits) return true;
  const now = context.clock();
  const cost = admissionCost(promptTokens(request.messages), request);
  const refusal = limits.admit(cost, counters.admittedInFlight, now);
  for (const [name, value] of Object.entries(limits.headers(now, refusal !== null, cost))) res.setHeader(name, value);
  if (refusal) {
    counters.modelAnswered(model, now, false);
    sendLimited(context, res, requestId, refusal);
    return false;
  }
  counters.modelAnswered(model, now, true);
  counters.admit(cost);
  // 'close' comes once, after the answer is written or when the connection is gone.
  res.once('close', () => counters.release());
  return true;
}
