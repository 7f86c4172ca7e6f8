import type { AttemptFailure } from '../http/attempt.js';
import { shownBaseUrl } from '../job/base-url.js';
import type { RunConfig } from '../job/config.js';
import type { FatalCause } from '../pace/pacer.js';
import { REFUSAL_STREAK, REFUSAL_STREAK_AFTER_SUCCESS } from '../pace/refusal-streak.js';
import { type NobodyThereKind, nobodyThereKind, UNREACHABLE_STREAK } from '../pace/unreachable-endpoint.js';
import { paramsEveryRowCarries, sentParamNamed } from '../request/sent-params.js';
import type { FatalStop } from './model-lanes.js';

export interface FatalContext {
  baseUrl: string;
  model: string;
  /** The answer stopped only this model's rows (a run with several models goes on with the others). */
  modelOnly?: boolean;
  keyName: string;
  keyMask: string;
  /** The proxy requests went through, password masked, and its variable; absent when direct. */
  proxy?: string | null;
  /** --max-outage-ms, named when an outage stopped the run. */
  maxOutageMs?: number;
  /** The parameters every request carries, to name the one a refusal names. */
  sentParams?: readonly string[];
}

/** How the run names its key and proxy in a stop message. */
export interface KeyShown {
  keyName: string;
  keyMask: string;
  /** The proxy requests go through, as shown; null when direct. */
  proxy: string | null;
}

/** Why the run, or one model's rows, stopped early, in words. */
export function explainStop(stop: FatalStop, config: RunConfig, shown: KeyShown): string {
  const context: FatalContext = {
    baseUrl: shownBaseUrl(config.baseUrl),
    model: stop.model,
    modelOnly: !stop.stopsRun,
    keyName: shown.keyName,
    keyMask: shown.keyMask,
    proxy: shown.proxy,
    maxOutageMs: config.maxOutageMs,
    sentParams: paramsEveryRowCarries(config),
  };
  return explainFatal(stop.outcome, context, stop.cause);
}

/** What the answer stopped: the run, or one model's rows. */
function stoppedWhat(context: FatalContext): string {
  return context.modelOnly ? `the model ${context.model}'s rows` : 'the run';
}

/**
 * What to tell the user when the endpoint refuses requests for a reason no retry can fix. The
 * outcome's server text is already redacted (the chat client hands out no other).
 */
export function explainFatal(outcome: AttemptFailure, context: FatalContext, cause: FatalCause = 'endpoint'): string {
  if (cause === 'refusal-streak') return explainRefusalStreak(outcome, context);
  if (cause === 'outage') return explainOutage(outcome, context);
  if (cause === 'rate-quota' || cause === 'rate-limited') return explainRateLimit(outcome, context, cause);
  const nobodyThere = outcome.status === null ? nobodyThereKind(outcome.connectionErrorCode) : null;
  if (nobodyThere) return explainUnreachable(outcome, nobodyThere, context);
  const refuser = outcome.code === 'proxy_auth' ? 'the proxy' : 'the endpoint';
  const headline =
    outcome.code === 'bad_response'
      ? 'what answers at the base URL is no chat-completions endpoint'
      : `${refuser} refuses this configuration`;
  return `${headline}, so ${stoppedWhat(context)} stopped early.\n  ${answerFacts(outcome, context)}\n  check: ${advice(outcome)}`;
}

function answerFacts(outcome: AttemptFailure, context: FatalContext): string {
  return (
    `HTTP ${outcome.status ?? '-'}, code ${outcome.code}${typeNote(outcome)}: ${outcome.message}\n` +
    `  base URL: ${context.baseUrl}\n  model:    ${context.model}\n  key:      ${context.keyName} (${context.keyMask})` +
    proxyLine(context) +
    (outcome.traceId ? `\n  trace id: ${outcome.traceId}` : '')
  );
}

/** The error's type, when the code only restates a number (LiteLLM's `budget_exceeded` behind `code: "400"`). */
function typeNote(outcome: AttemptFailure): string {
  return outcome.errorType !== undefined && /^\d+$/.test(outcome.code) ? ` (type ${outcome.errorType})` : '';
}

function proxyLine(context: FatalContext): string {
  return context.proxy ? `\n  proxy:    ${context.proxy}` : '';
}

function explainRefusalStreak(outcome: AttemptFailure, context: FatalContext): string {
  // The message may name a parameter: used only to name it, the streak decided the stop.
  const param = sentParamNamed(context.sentParams ?? [], [outcome.param, outcome.message]);
  const named =
    param === null ? '' : `  the answer names the parameter '${param}' that every request carries: remove it or change its value.\n`;
  return (
    `the endpoint refused ${REFUSAL_STREAK} different rows' requests the same way with none accepted between ` +
    `(${REFUSAL_STREAK_AFTER_SUCCESS} once a row has succeeded), so ${stoppedWhat(context)} stopped early.\n` +
    `  ${answerFacts(outcome, context)}\n${named}` +
    '  check: what every request shares: params, the system message and template, the model and what it requires ' +
    '(--dry-run checks every row and builds every request without sending), and the base URL ' +
    '(a web server answers 400 to plain http:// sent to its https:// port).\n' +
    '  those rows are in errors.jsonl; rows not sent stay pending: run again with --resume ' +
    '(rows whose request changed are sent again; if only these rows were bad, --resume goes on past them)'
  );
}

function explainOutage(outcome: AttemptFailure, context: FatalContext): string {
  const limit = context.maxOutageMs === undefined ? '' : ` (${formatDuration(context.maxOutageMs)})`;
  // Already redacted: the chat client hands out no server text that is not.
  return (
    `the endpoint answered only server errors, resets or timeouts for longer than --max-outage-ms${limit}, so ${stoppedWhat(context)} stopped early.\n` +
    `  ${outcome.status === null ? 'last attempt' : 'last HTTP answer'}: ${answerFacts(outcome, context)}\n` +
    "  check: the provider's status page, and any gateway or proxy in front of the endpoint (an HTML 502/503/504 page is " +
    'usually the gateway saying its upstream is down).\n' +
    '  rows not answered stay pending: run again with --resume once the endpoint is back ' +
    '(a larger --max-outage-ms waits longer; if the last rows left are ones the server fails on every time, ' +
    '--max-outage-ms 0 lets them fail as rows instead)'
  );
}

function explainRateLimit(outcome: AttemptFailure, context: FatalContext, cause: 'rate-quota' | 'rate-limited'): string {
  const limit = context.maxOutageMs === undefined ? '' : ` (${formatDuration(context.maxOutageMs)})`;
  const headline =
    cause === 'rate-quota'
      ? `the endpoint's rate limit will not allow another request for longer than --max-outage-ms${limit} (a daily or monthly quota spent), so ${stoppedWhat(context)} stopped early.`
      : `the endpoint answered nothing but 429s (rate limited) for longer than --max-outage-ms${limit}, so ${stoppedWhat(context)} stopped early.`;
  return (
    `${headline}\n  last answer: ${answerFacts(outcome, context)}\n` +
    "  check: the limits and usage in the provider's console, and whether another job shares this key.\n" +
    '  rows not answered stay pending: run again with --resume once the limit has room (a larger --max-outage-ms waits longer)'
  );
}

function formatDuration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}

function advice(outcome: AttemptFailure): string {
  if (outcome.code === 'redirect') {
    return 'the base URL: chatbatch never follows a redirect (the key would go wherever the server points), so give the address it redirects to';
  }
  if (outcome.code === 'proxy_auth') {
    return 'the user name and password in the proxy URL (http://user:password@host:port, with special characters %-escaped) in the variable named above';
  }
  if (outcome.rule === 'unknown-parameter') {
    return (
      `the parameter '${outcome.param}' that every request carries: the endpoint refuses it (not supported by this endpoint or model, ` +
      'or a value it does not take); remove it from the params (--param, the job file) or change its value'
    );
  }
  if (outcome.rule === 'account' || outcome.rule === 'budget-412' || outcome.status === 402) {
    return "the account's balance, quota or budget in the provider's (or gateway's) console; rows not yet sent stay pending for --resume";
  }
  if (outcome.status === 401 || outcome.status === 403) {
    return `that ${'the key'} is complete and active and was issued for this base URL; the key is read from the environment variable or file named above`;
  }
  if (outcome.code === 'bad_response' && outcome.fatalForRun) {
    return (
      'the base URL: what answers there is not a chat-completions endpoint (a web page or an empty answer, where JSON with ' +
      "choices[0].message was expected): give the API's base URL exactly as the provider's console shows it, often ending in /v1 " +
      '(chatbatch appends /chat/completions); rows not yet answered stay pending for --resume'
    );
  }
  if (outcome.status === 404) {
    return "the base URL exactly as the provider's console shows it (chatbatch appends /chat/completions) and the model name exactly as listed there";
  }
  return "the account's balance or quota in the provider's console; rows not yet sent stay pending for --resume";
}

/** No HTTP response ever came: the message leads with the error code and what to check for it. */
function explainUnreachable(outcome: AttemptFailure, kind: NobodyThereKind, context: FatalContext): string {
  const facts =
    `the endpoint has not answered once; ${UNREACHABLE_STREAK} attempts in a row failed to connect, the last with:\n` +
    `  ${outcome.message.replace(/\s+/g, ' ').trim()}\n` +
    `  base URL: ${context.baseUrl}\n  model:    ${context.model}\n  key:      ${context.keyName} (${context.keyMask})` +
    proxyLine(context);
  // Through a proxy, the connection that failed is the one to the proxy (but for TLS and tunnels).
  const viaProxy = context.proxy ? PROXY_HEADLINE[kind] : undefined;
  const check = context.proxy && kind !== 'tls' && kind !== 'proxy' ? PROXY_ADVICE : ADVICE[kind];
  return (
    `${viaProxy ?? HEADLINE[kind]} (${outcome.connectionErrorCode}), so ${stoppedWhat(context)} stopped early.\n  ${facts}\n  check: ${check}\n` +
    `  rows not answered stay pending: fix the base URL (or start the server${context.proxy ? ', or fix the proxy' : ''}) and run again with --resume`
  );
}

const HEADLINE: Readonly<Record<NobodyThereKind, string>> = {
  refused: 'nothing is listening at the base URL',
  dns: "the base URL's host name does not resolve",
  route: "the base URL's host cannot be reached from this machine",
  tls: 'no TLS connection could be set up with the base URL',
  proxy: 'the proxy would not open a tunnel to the base URL',
};

const PROXY_HEADLINE: Readonly<Partial<Record<NobodyThereKind, string>>> = {
  refused: 'nothing is listening at the proxy',
  dns: "the proxy's host name does not resolve",
  route: "the proxy's host cannot be reached from this machine",
};

const PROXY_ADVICE =
  'that the proxy named above is running and reachable at that host and port (or, to reach the base URL directly, ' +
  "add its host to NO_PROXY or unset the proxy's variable)";

const ADVICE: Readonly<Record<NobodyThereKind, string>> = {
  refused:
    'that the server is running and listening on this host and port, that http:// or https:// matches what it speaks, and that any proxy or tunnel in between is up',
  dns: 'the host name in the base URL (spelling), that it resolves from this machine (DNS, VPN, /etc/hosts), and any proxy it is reached through',
  route: 'that this machine can reach the host in the base URL (network, VPN, firewall, proxy) and that it is the right address and port',
  tls:
    'http:// vs https://: a protocol error (EPROTO, wrong version number) usually means https:// for a server that speaks plain http; ' +
    'a certificate error means the certificate is not trusted here (self-signed, or re-signed by a proxy: NODE_EXTRA_CA_CERTS) or names another host',
  proxy:
    "that the proxy may connect to the base URL's host and port (its access rules; it answered the tunnel request with the status named above) " +
    'and that the host is up; or add the host to NO_PROXY to reach it directly',
};
