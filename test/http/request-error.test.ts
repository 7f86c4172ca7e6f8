import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import { describeRequestError, type RequestTarget } from '../../src/http/request-error.js';
import { nobodyThereKind } from '../../src/pace/unreachable-endpoint.js';

const DIRECT: RequestTarget = { request: 'POST https://api.example.test/v1/chat/completions', proxy: null, timeoutMs: 5000 };
const PROXIED: RequestTarget = { ...DIRECT, proxy: { shown: 'http://u:***@proxy.test:3128', variable: 'HTTPS_PROXY' } };

const errno = (code: string, message: string) => Object.assign(new Error(message), { code });
const wrapped = (error: Error, cause: Error) => Object.assign(error, { cause });

/**
 * undici's own error classes (the ones its dispatchers raise), mapped to our codes; the system
 * code is kept as `connectionErrorCode`, so "nobody there" is still recognised (see the last column).
 */
describe('describeRequestError', () => {
  it.each([
    ['refused', errno('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:443'), 'network_error', 'ECONNREFUSED', 'refused'],
    ['DNS', errno('ENOTFOUND', 'getaddrinfo ENOTFOUND api.example.test'), 'network_error', 'ENOTFOUND', 'dns'],
    ['DNS again', errno('EAI_AGAIN', 'getaddrinfo EAI_AGAIN api.example.test'), 'network_error', 'EAI_AGAIN', 'dns'],
    ['no route', errno('EHOSTUNREACH', 'connect EHOSTUNREACH'), 'network_error', 'EHOSTUNREACH', 'route'],
    ['no network', errno('ENETUNREACH', 'connect ENETUNREACH'), 'network_error', 'ENETUNREACH', 'route'],
    ['TLS version', errno('ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number'), 'network_error', 'ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
    ['self-signed', errno('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'), 'network_error', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['other side closed', new errors.SocketError('other side closed'), 'network_error', 'ECONNRESET', null],
    [
      'a reset, as the socket says',
      wrapped(new errors.SocketError('closed'), errno('ECONNRESET', 'read ECONNRESET')),
      'network_error',
      'ECONNRESET',
      null,
    ],
    [
      'a proxy certificate for another host',
      wrapped(
        new errors.SecureProxyConnectionError(errno('ERR_TLS_CERT_ALTNAME_INVALID', 'altname')),
        errno('ERR_TLS_CERT_ALTNAME_INVALID', 'altname'),
      ),
      'network_error',
      'ERR_TLS_CERT_ALTNAME_INVALID',
      'tls',
    ],
    ['connect timeout', new errors.ConnectTimeoutError('Connect Timeout Error'), 'timeout', undefined, null],
    ['headers timeout', new errors.HeadersTimeoutError('Headers Timeout Error'), 'timeout', undefined, null],
    ['body timeout', new errors.BodyTimeoutError('Body Timeout Error'), 'timeout', undefined, null],
    ['a closed pool', new errors.ClientDestroyedError(), 'network_error', undefined, null],
    [
      'not HTTP',
      new errors.HTTPParserError('Response does not match the HTTP/1.1 protocol'),
      'network_error',
      'HPE_INVALID_RESPONSE',
      null,
    ],
  ])('%s', (_name, error, code, connectionErrorCode, kind) => {
    const facts = describeRequestError(error, DIRECT);
    expect(facts).toMatchObject({ code, fatalForRun: false });
    expect(facts.connectionErrorCode).toBe(connectionErrorCode);
    expect(nobodyThereKind(facts.connectionErrorCode)).toBe(kind);
    expect(facts.message).toContain(DIRECT.request);
  });

  it('names the proxy in the message when one is in use', () => {
    expect(describeRequestError(errno('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.9:3128'), PROXIED).message).toBe(
      'ECONNREFUSED: connect ECONNREFUSED 10.0.0.9:3128 (POST https://api.example.test/v1/chat/completions via the proxy http://u:***@proxy.test:3128)',
    );
  });

  it('a tunnel the proxy refuses is "nobody there" through it; a 407 stops the run', () => {
    const refused = describeRequestError(new errors.RequestAbortedError('Proxy response (502) !== 200 when HTTP Tunneling'), PROXIED);
    expect(refused).toMatchObject({ code: 'network_error', connectionErrorCode: 'ERR_PROXY_TUNNEL', fatalForRun: false });
    expect(refused.message).toContain('answered 502 when asked for a tunnel');
    expect(nobodyThereKind(refused.connectionErrorCode)).toBe('proxy');
    for (const error of [
      new errors.RequestAbortedError('Proxy response (407) !== 200 when HTTP Tunneling'),
      new errors.InvalidArgumentError('Proxy Authentication Required (407)'),
    ]) {
      expect(describeRequestError(error, PROXIED)).toMatchObject({
        code: 'proxy_auth',
        fatalForRun: true,
        message: expect.stringContaining('the proxy http://u:***@proxy.test:3128 (from HTTPS_PROXY) answered 407'),
      });
    }
  });
});
