import { hash } from 'node:crypto';
import { maxCompletionTokens } from './completion-limit.js';
import type { ChatMessage } from './messages.js';

export interface ChatRequest {
  /** The model the body names. */
  model: string;
  /** The exact JSON body sent: model, messages, then opted-in params. */
  body: string;
  /** Identifies the request's meaning (base URL, extra headers as written, model, messages, params) for resume and the cache. */
  fingerprint: string;
  /** Rough prompt size before responses calibrate it (TokenEstimator): characters / 4, plus a little per message. */
  estimatedTokens: number;
  /** Characters of the messages' content: what the run's calibrated token estimates scale. */
  promptChars: number;
  /** The most completion tokens the body allows (completion-limit.ts): counted in its size against a TPM limit. */
  maxCompletion: number | null;
}

export interface RequestSettings {
  baseUrl: string;
  model: string;
  params: Readonly<Record<string, unknown>>;
  /** The extra headers' identity (headers.ts `headersIdentity`); '' or absent when there are none. */
  headers?: string;
}

export function buildChatRequest(messages: readonly ChatMessage[], settings: RequestSettings): ChatRequest {
  const body = JSON.stringify({ model: settings.model, messages, ...sortedParams(settings.params) });
  // Without extra headers the fingerprint is what it always was, so earlier runs still resume.
  const identity = settings.headers ? `${settings.baseUrl}\n${settings.headers}\n${body}` : `${settings.baseUrl}\n${body}`;
  const fingerprint = hash('sha256', identity).slice(0, 32);
  return {
    model: settings.model,
    body,
    fingerprint,
    estimatedTokens: estimateTokens(messages),
    promptChars: contentChars(messages),
    maxCompletion: maxCompletionTokens(settings.params),
  };
}

export function estimateTokens(messages: readonly ChatMessage[]): number {
  return Math.ceil(contentChars(messages) / 4) + 4 * messages.length;
}

function contentChars(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const message of messages) chars += message.content.length;
  return chars;
}

/**
 * Param order must not change the fingerprint, so params are serialised by sorted name. Built
 * with fromEntries: every name, whatever it is, becomes an own field of the body.
 */
function sortedParams(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(params)
      .sort()
      .map((name) => [name, params[name]]),
  );
}
