import { Redactor } from '../record/redactor.js';
import type { AttemptFailure, AttemptOutcome } from './attempt.js';
import { type CompletionContext, judgeCompletion } from './completion.js';
import { readErrorBody } from './error-body.js';
import { errorAnswer, failure } from './failure.js';

/** What the run's answers are read against: the parameters every request carries, the run's redactor. */
export interface InterpretContext extends CompletionContext {
  /** Keep the parsed body in the outcome (`--format openai-batch`). */
  keepBody: boolean;
}

const NO_CONTEXT: InterpretContext = Object.freeze({ sentParams: new Set<string>(), keepBody: false, redactor: new Redactor() });

/** What a complete response means: a reply, or a failure given its meaning by the answer table. */
export function interpret(
  status: number,
  headers: Record<string, string>,
  text: string,
  started: bigint,
  requestUrl: string,
  context: InterpretContext = NO_CONTEXT,
): AttemptOutcome {
  const outcome = interpretStatus(status, headers, text, started, requestUrl, context);
  // `--format openai-batch` writes the body as received: parsed again only then, never by default.
  if (context.keepBody && !REDIRECTS.has(status)) {
    const body = jsonObject(text);
    if (body !== undefined) outcome.body = body;
  }
  return outcome;
}

function interpretStatus(
  status: number,
  headers: Record<string, string>,
  text: string,
  started: bigint,
  requestUrl: string,
  context: CompletionContext,
): AttemptOutcome {
  if (status >= 200 && status < 300) return judgeCompletion(status, headers, text, started, context);
  if (REDIRECTS.has(status)) return redirected(status, headers, started, requestUrl);
  const error = readErrorBody(status, headers['content-type'], text, context.redactor);
  return errorAnswer(status, status, headers, error, started, context);
}

const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** The text as a JSON object; undefined when it is not one (an HTML error page, an empty body). */
function jsonObject(text: string): object | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A redirect answers the configuration, not the row: every row would get it. It is never
 * followed (the key would go wherever the server points) and stops the run, naming where it
 * points. `Location` is the server's text: it crosses the redaction boundary with the message.
 */
function redirected(status: number, headers: Record<string, string>, started: bigint, requestUrl: string): AttemptFailure {
  const location = headers.location?.trim();
  let message: string;
  if (!location) {
    message = `the base URL answers with a redirect (HTTP ${status}) but names no Location; chatbatch does not follow redirects: use the endpoint's own address as the base URL`;
  } else {
    const target = resolveLocation(location, requestUrl);
    const base =
      target && /\/chat\/completions\/?$/.test(target.pathname)
        ? `${target.origin}${target.pathname.replace(/\/chat\/completions\/?$/, '')}${target.search}`
        : null;
    message = base
      ? `the base URL redirects to ${target!.href} (HTTP ${status}); use ${base} as the base URL (chatbatch does not follow redirects)`
      : `the base URL redirects to ${target?.href ?? location} (HTTP ${status}); use that address's API base URL as the base URL (chatbatch does not follow redirects)`;
  }
  const outcome = failure(status, 'redirect', message, headers, started);
  outcome.fatalForRun = true;
  return outcome;
}

function resolveLocation(location: string, requestUrl: string): URL | null {
  try {
    return new URL(location, requestUrl);
  } catch {
    return null;
  }
}
