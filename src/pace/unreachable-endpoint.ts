import type { AttemptOutcome } from '../http/attempt.js';

/** Why a connection error means nobody is there, which decides what the user is told to check. */
export type NobodyThereKind = 'refused' | 'dns' | 'route' | 'tls' | 'proxy';

const BY_CODE: Readonly<Record<string, NobodyThereKind>> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_FAIL: 'dns',
  EHOSTUNREACH: 'route',
  ENETUNREACH: 'route',
  EPROTO: 'tls',
  HOSTNAME_MISMATCH: 'tls',
  // The proxy answered a CONNECT with anything but 200: it cannot or may not reach the base URL.
  ERR_PROXY_TUNNEL: 'proxy',
};
/**
 * OpenSSL's failures (ERR_SSL_WRONG_VERSION_NUMBER, ...) and certificate checks
 * (CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT, UNABLE_TO_VERIFY_LEAF_SIGNATURE,
 * ERR_TLS_CERT_ALTNAME_INVALID, ...). Not ERR_TLS_HANDSHAKE_TIMEOUT: timeouts never count.
 */
const TLS_CODE = /^(ERR_SSL_\w+|ERR_TLS_CERT_\w+|\w*_CERT(_\w+)?|CERT_\w+|UNABLE_TO_\w+)$/;

/**
 * What a connection error code says about the endpoint: a kind when it means nobody usable is
 * at the base URL (nothing listens, the name does not resolve, no route, TLS cannot be set up),
 * null for everything else. Resets and timeouts are null: a reachable but overloaded server
 * resets and hangs, so they prove nothing about the URL.
 */
export function nobodyThereKind(code: string | undefined): NobodyThereKind | null {
  if (code === undefined) return null;
  return BY_CODE[code] ?? (TLS_CODE.test(code) ? 'tls' : null);
}

/**
 * How many "nobody is there" attempts in a row, before the endpoint has ever answered, stop
 * the run. Not 1: DNS can hiccup once (EAI_AGAIN) and a host with several addresses can have
 * one that refuses; three in a row with no answer in between is a wrong URL or a server that is
 * not running, not bad luck. Not more: until the first answer the run sends one request at a
 * time (the rate controller's probe), so these three attempts are all it spends, a few
 * milliseconds on a refused port; more would only make the wait longer, and the rows stay
 * pending for `--resume` anyway.
 */
export const UNREACHABLE_STREAK = 3;

/**
 * Watches the run's attempts for a base URL where nobody answers, so a wrong host, port or
 * scheme stops the run (like a bad key does) instead of turning every row into a `network`
 * failure. One per run, fed every attempt's outcome.
 *
 * Once any HTTP response has arrived (even a 500) the endpoint exists, and connection errors
 * after that are ordinary retryable failures: a server that was up and drops connections is
 * not a wrong URL. Before that, a reset or timeout breaks the streak (it is not a clear
 * "nobody is there"); our own cancellations are ignored.
 */
export class UnreachableEndpointWatch {
  private answered = false;
  private streak = 0;

  /**
   * Whether `outcome` found nobody at the base URL while nobody has ever answered there. Such an
   * attempt reached no server, so trying it again costs nothing and cannot pay twice.
   */
  foundNobodyYet(outcome: AttemptOutcome): boolean {
    return !this.answered && foundNobody(outcome);
  }

  /** `outcome`, marked fatal for the run when it completes the streak. */
  observe(outcome: AttemptOutcome): AttemptOutcome {
    if (this.answered) return outcome;
    if (outcome.status !== null) {
      this.answered = true;
      return outcome;
    }
    if (outcome.ok || outcome.code === 'aborted') return outcome;
    if (!foundNobody(outcome)) {
      this.streak = 0;
      return outcome;
    }
    this.streak++;
    return this.streak >= UNREACHABLE_STREAK ? { ...outcome, fatalForRun: true } : outcome;
  }
}

/** An attempt that got no HTTP response because nobody usable is at the base URL. */
function foundNobody(outcome: AttemptOutcome): boolean {
  return !outcome.ok && outcome.status === null && nobodyThereKind(outcome.connectionErrorCode) !== null;
}
