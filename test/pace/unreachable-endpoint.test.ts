import { describe, expect, it } from 'vitest';
import type { AttemptFailure, AttemptOutcome } from '../../src/http/attempt.js';
import {
  type NobodyThereKind,
  nobodyThereKind,
  UNREACHABLE_STREAK,
  UnreachableEndpointWatch,
} from '../../src/pace/unreachable-endpoint.js';
import { explainFatal } from '../../src/run/fatal-hint.js';

describe('nobodyThereKind', () => {
  const table: Array<[string | undefined, NobodyThereKind | null]> = [
    ['ECONNREFUSED', 'refused'],
    ['ENOTFOUND', 'dns'],
    ['EAI_AGAIN', 'dns'],
    ['EAI_FAIL', 'dns'],
    ['EHOSTUNREACH', 'route'],
    ['ENETUNREACH', 'route'],
    ['EPROTO', 'tls'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
    ['CERT_HAS_EXPIRED', 'tls'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'tls'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls'],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'tls'],
    ['HOSTNAME_MISMATCH', 'tls'],
    // A reachable but overloaded server resets and hangs: never evidence of a wrong URL.
    ['ECONNRESET', null],
    ['ETIMEDOUT', null],
    ['ERR_TLS_HANDSHAKE_TIMEOUT', null],
    ['EPIPE', null],
    ['ERROR', null],
    [undefined, null],
  ];
  it.each(table)('%s -> %s', (code, kind) => {
    expect(nobodyThereKind(code)).toBe(kind);
  });
});

const refused = connectionError('ECONNREFUSED');
const dns = connectionError('EAI_AGAIN');
const reset = connectionError('ECONNRESET');
const timeout: AttemptFailure = {
  ...connectionError(undefined),
  code: 'timeout',
  category: 'timeout',
  message: 'no complete response within 1000 ms',
};
const cancelled: AttemptFailure = { ...connectionError(undefined), code: 'aborted', retryable: false };
const status500: AttemptFailure = { ...connectionError(undefined), status: 500, code: 'http_500', category: 'server_error' };
const success: AttemptOutcome = { ok: true, status: 200, reply: 'hi', finishReason: 'stop', traceId: null, headers: {}, durationMs: 3 };

describe('UnreachableEndpointWatch', () => {
  // Each case: outcomes in the order the run sees them, and the index of the one that stops the
  // run (null: none does).
  const table: Array<[string, AttemptOutcome[], number | null]> = [
    ['three refusals before any answer stop the run on the third', [refused, refused, refused, refused], 2],
    ['DNS failures count like refusals, and kinds mix', [dns, refused, dns], 2],
    ['two refusals are not enough', [refused, refused], null],
    ['a 500 proves the endpoint exists: refusals after it are ordinary', [status500, refused, refused, refused, refused], null],
    ['so does a success', [success, refused, refused, refused], null],
    ['resets never count and break the streak', [refused, refused, reset, refused, refused], null],
    ['timeouts never count and break the streak', [refused, timeout, refused, refused, refused], 4],
    ['a run of resets alone never stops the run', [reset, reset, reset, reset], null],
    ['our own cancellations neither count nor break the streak', [refused, cancelled, refused, cancelled, refused], 4],
  ];
  it.each(table)('%s', (_name, outcomes, stopsAt) => {
    const watch = new UnreachableEndpointWatch();
    const fatal = outcomes.map((outcome) => {
      const seen = watch.observe(outcome);
      return !seen.ok && seen.fatalForRun;
    });
    expect(fatal.indexOf(true)).toBe(stopsAt ?? -1);
    if (stopsAt !== null) expect(fatal.filter(Boolean)).toHaveLength(outcomes.length - stopsAt);
  });

  it('stops after exactly UNREACHABLE_STREAK attempts and keeps the outcome otherwise intact', () => {
    const watch = new UnreachableEndpointWatch();
    for (let i = 1; i < UNREACHABLE_STREAK; i++) expect(watch.observe(refused)).toBe(refused);
    expect(watch.observe(refused)).toEqual({ ...refused, fatalForRun: true });
  });

  it('says which failures found nobody while nobody has answered yet (those rows try again)', () => {
    const watch = new UnreachableEndpointWatch();
    for (const outcome of [refused, dns, reset, timeout, cancelled, status500]) watch.observe(outcome);
    const before = new UnreachableEndpointWatch();
    expect([refused, dns, reset, timeout, cancelled, status500, success].map((outcome) => before.foundNobodyYet(outcome))).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(watch.foundNobodyYet(refused)).toBe(false); // the 500 answered
  });
});

describe('explainFatal for an endpoint nobody answers at', () => {
  const context = { baseUrl: 'http://127.0.0.1:9/v1', model: 'm-1', keyName: 'CHATBATCH_API_KEY', keyMask: 'sk-a…3210' };
  const table: Array<[string, string[]]> = [
    ['ECONNREFUSED', ['nothing is listening', 'server is running', 'host and port', 'https://', 'proxy']],
    ['ENOTFOUND', ['host name does not resolve', 'DNS', 'proxy']],
    ['EHOSTUNREACH', ['cannot be reached', 'VPN', 'proxy']],
    ['EPROTO', ['TLS', 'https:// for a server that speaks plain http']],
    ['CERT_HAS_EXPIRED', ['TLS', 'certificate']],
  ];
  it.each(table)('%s names the code, base URL, model and what to check', (code, hints) => {
    const message = explainFatal({ ...connectionError(code), fatalForRun: true }, context);
    for (const fact of [code, context.baseUrl, context.model, `${UNREACHABLE_STREAK} attempts in a row`, '--resume', ...hints]) {
      expect(message).toContain(fact);
    }
  });
});

function connectionError(code: string | undefined): AttemptFailure {
  const failure: AttemptFailure = {
    ok: false,
    status: null,
    code: 'network_error',
    message: `${code ?? 'ERROR'}: connect failed (POST http://127.0.0.1:9/v1/chat/completions)`,
    category: 'network',
    retryable: true,
    fatalForRun: false,
    traceId: null,
    headers: {},
    durationMs: 1,
  };
  if (code !== undefined) failure.connectionErrorCode = code;
  return failure;
}
