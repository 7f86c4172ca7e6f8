import type { ClientCode } from '../record/client-codes.js';

/** How an attempt that got no complete response ended, from the error undici reported. */
export interface RequestErrorFacts {
  code: ClientCode;
  message: string;
  fatalForRun: boolean;
  /** The raw error code (ECONNREFUSED, ENOTFOUND, ...) callers decide from; see AttemptFailure. */
  connectionErrorCode?: string;
}

export interface RequestTarget {
  /** `POST https://host/v1/chat/completions`, for messages. */
  request: string;
  /** The proxy in use, password masked, and the variable naming it; null when direct. */
  proxy: { shown: string; variable: string } | null;
  timeoutMs: number;
  /** The connection's bound (TCP and TLS); timeoutMs when absent. */
  connectTimeoutMs?: number;
  /** The bound from the request sent to the response headers; null or absent for none. */
  headersTimeoutMs?: number | null;
}

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: { code?: unknown } | null;
}

/** undici's wording for a proxy that answers CONNECT with anything but 200 (lib/dispatcher/proxy-agent.js). */
const TUNNEL_REFUSED = /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling$/;
/** ...and for a 407 to a request sent through the proxy in absolute form. */
const PROXY_AUTH = /^Proxy Authentication Required \(407\)$/;

/**
 * undici reports errno codes as they are (ECONNREFUSED, ENOTFOUND, EPROTO, ERR_SSL_*, CERT_*),
 * and its own as UND_ERR_* with the system's code, when there is one, in `cause`. The system
 * code is kept when there is one: src/pace/unreachable-endpoint.ts decides from it.
 */
export function describeRequestError(error: unknown, target: RequestTarget): RequestErrorFacts {
  const e = (typeof error === 'object' && error !== null ? error : {}) as ErrorLike;
  const ownCode = typeof e.code === 'string' ? e.code : undefined;
  const causeCode = typeof e.cause?.code === 'string' ? e.cause.code : undefined;
  const text = typeof e.message === 'string' ? e.message : String(error);
  const where = target.proxy ? `${target.request} via the proxy ${target.proxy.shown}` : target.request;

  const tunnel = TUNNEL_REFUSED.exec(text);
  if (PROXY_AUTH.test(text) || tunnel?.[1] === '407') return proxyAuthRequired(target);
  if (tunnel && target.proxy) {
    return {
      code: 'network_error',
      fatalForRun: false,
      connectionErrorCode: 'ERR_PROXY_TUNNEL',
      message: `ERR_PROXY_TUNNEL: the proxy ${target.proxy.shown} (from ${target.proxy.variable}) answered ${tunnel[1]} when asked for a tunnel to the base URL (${target.request})`,
    };
  }
  if (ownCode === 'UND_ERR_CONNECT_TIMEOUT') {
    const bound = target.connectTimeoutMs ?? target.timeoutMs;
    return { code: 'timeout', fatalForRun: false, message: `no connection within ${bound} ms (--connect-timeout-ms; ${where})` };
  }
  if (ownCode === 'UND_ERR_HEADERS_TIMEOUT' && target.headersTimeoutMs) {
    return {
      code: 'timeout',
      fatalForRun: false,
      message: `no response headers within ${target.headersTimeoutMs} ms of sending the request (--headers-timeout-ms; ${where})`,
    };
  }
  if (ownCode === 'UND_ERR_HEADERS_TIMEOUT' || ownCode === 'UND_ERR_BODY_TIMEOUT') {
    return { code: 'timeout', fatalForRun: false, message: `no complete response within the time limit (${ownCode}, ${where})` };
  }
  if (ownCode === 'UND_ERR_SOCKET') {
    // The other side closed (or reset) the connection: the old client's ECONNRESET.
    const code = causeCode ?? 'ECONNRESET';
    return {
      code: 'network_error',
      fatalForRun: false,
      connectionErrorCode: code,
      message: `${code}: the connection closed before the response was complete (${where})`,
    };
  }
  if (ownCode === 'UND_ERR_DESTROYED' || ownCode === 'UND_ERR_CLOSED') {
    return {
      code: 'network_error',
      fatalForRun: false,
      message: `the connection pool was closed before the response was complete (${where})`,
    };
  }
  if (e.name === 'HTTPParserError') {
    const code = ownCode ?? 'HPE_INVALID_RESPONSE';
    return {
      code: 'network_error',
      fatalForRun: false,
      connectionErrorCode: code,
      message: `${code}: the answer is not HTTP/1.1 (${text}) (${where})`,
    };
  }
  // undici wraps some system errors (a proxy certificate for another host: UND_ERR_PRX_TLS).
  const code = (ownCode?.startsWith('UND_ERR_') && causeCode) || ownCode || causeCode || 'ERROR';
  return { code: 'network_error', fatalForRun: false, connectionErrorCode: code, message: `${code}: ${text} (${where})` };
}

/** Every request through this proxy gets the same answer: a configuration problem, like a bad key. */
function proxyAuthRequired(target: RequestTarget): RequestErrorFacts {
  const proxy = target.proxy ? `the proxy ${target.proxy.shown} (from ${target.proxy.variable})` : 'a proxy';
  return {
    code: 'proxy_auth',
    fatalForRun: true,
    message: `${proxy} answered 407 Proxy Authentication Required (${target.request})`,
  };
}
