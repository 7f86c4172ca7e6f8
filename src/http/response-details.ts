import type { AttemptSuccess } from './attempt.js';

type Details = Pick<AttemptSuccess, 'responseModel' | 'systemFingerprint' | 'created' | 'replies'>;

/**
 * What a completion says beyond its first reply, each only when present and of the right type
 * (the spec makes all of it optional): provenance (the model that answered, which can differ
 * from the name sent; `system_fingerprint`; `created`) and, when more than one choice came
 * (`n` > 1), every choice's content, in the order of `choices`.
 */
export function responseDetails(body: { model?: unknown; system_fingerprint?: unknown; created?: unknown; choices?: unknown }): Details {
  const details: Details = {};
  if (typeof body.model === 'string') details.responseModel = body.model;
  if (typeof body.system_fingerprint === 'string') details.systemFingerprint = body.system_fingerprint;
  if (typeof body.created === 'number' && Number.isFinite(body.created)) details.created = body.created;
  if (Array.isArray(body.choices) && body.choices.length > 1) details.replies = body.choices.map(choiceContent);
  return details;
}

function choiceContent(choice: unknown): string | null {
  if (typeof choice !== 'object' || choice === null) return null;
  const message = (choice as { message?: unknown }).message;
  if (typeof message !== 'object' || message === null) return null;
  const content = (message as { content?: unknown }).content;
  return typeof content === 'string' ? content : null;
}
