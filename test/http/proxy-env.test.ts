import { describe, expect, it } from 'vitest';
import { bypassesProxy, proxyFor } from '../../src/http/proxy-env.js';

const HTTPS = new URL('https://api.example.com/v1/chat/completions');
const HTTP = new URL('http://10.1.2.3:8000/v1/chat/completions');

function chosen(target: URL, env: Record<string, string>): string | null {
  const found = proxyFor(target, env);
  if (!found.ok) throw new Error(found.problem);
  return found.proxy && `${found.proxy.variable}=${found.proxy.url}`;
}

describe('proxyFor: which variable, as curl reads them', () => {
  it.each([
    ['https target, HTTPS_PROXY', HTTPS, { HTTPS_PROXY: 'http://p:3128' }, 'HTTPS_PROXY=http://p:3128/'],
    ['https target, https_proxy', HTTPS, { https_proxy: 'http://p:3128' }, 'https_proxy=http://p:3128/'],
    ['lower case wins over upper case', HTTPS, { https_proxy: 'http://low:1', HTTPS_PROXY: 'http://up:2' }, 'https_proxy=http://low:1/'],
    ['an empty lower-case value is unset', HTTPS, { https_proxy: '', HTTPS_PROXY: 'http://up:2' }, 'HTTPS_PROXY=http://up:2/'],
    ['https never falls back to HTTP_PROXY', HTTPS, { HTTP_PROXY: 'http://p:3128' }, null],
    ['http target, HTTP_PROXY', HTTP, { HTTP_PROXY: 'http://p:3128' }, 'HTTP_PROXY=http://p:3128/'],
    ['http target, http_proxy', HTTP, { http_proxy: 'p:3128' }, 'http_proxy=http://p:3128/'],
    ['http target ignores HTTPS_PROXY', HTTP, { HTTPS_PROXY: 'http://p:3128' }, null],
    ['nothing set', HTTPS, {}, null],
    ['an https:// proxy', HTTPS, { HTTPS_PROXY: 'https://p:8443' }, 'HTTPS_PROXY=https://p:8443/'],
  ])('%s', (_name, target, env, expected) => {
    expect(chosen(target, env)).toBe(expected);
  });

  it('masks the password, keeps the user, and hands the decoded password out for redaction', () => {
    const found = proxyFor(HTTPS, { HTTPS_PROXY: 'http://alice:s%40cret@proxy.corp:3128' });
    expect(found).toEqual({
      ok: true,
      proxy: {
        url: 'http://alice:s%40cret@proxy.corp:3128/',
        variable: 'HTTPS_PROXY',
        shown: 'http://alice:***@proxy.corp:3128',
        password: 's@cret',
        username: 'alice',
      },
    });
  });

  it.each([
    ['not a URL', 'http://[oops', 'HTTPS_PROXY is not a proxy URL'],
    ['a SOCKS proxy', 'socks5://p:1080', 'HTTPS_PROXY: socks5:// proxies are not supported'],
    ['a malformed %-escape in the password', 'http://u:100%@p:3128', 'malformed %-escape'],
  ])('refuses %s, naming the variable and never the password', (_name, value, problem) => {
    const found = proxyFor(HTTPS, { HTTPS_PROXY: value });
    expect(found.ok).toBe(false);
    if (!found.ok) {
      expect(found.problem).toContain(problem);
      expect(found.problem).not.toContain('100%');
    }
  });

  it('applies NO_PROXY (either case) before choosing', () => {
    expect(chosen(HTTPS, { HTTPS_PROXY: 'http://p:1', NO_PROXY: 'example.com' })).toBeNull();
    expect(chosen(HTTPS, { HTTPS_PROXY: 'http://p:1', no_proxy: 'other.com', NO_PROXY: 'example.com' })).toBe('HTTPS_PROXY=http://p:1/');
  });
});

describe('bypassesProxy: NO_PROXY entries', () => {
  it.each([
    ['api.example.com', 'https://api.example.com/', true],
    ['example.com', 'https://api.example.com/', true],
    ['.example.com', 'https://api.example.com/', true],
    ['*.example.com', 'https://api.example.com/', true],
    ['EXAMPLE.com', 'https://API.example.com/', true],
    ['ample.com', 'https://api.example.com/', false],
    ['other.com, example.com', 'https://api.example.com/', true],
    ['other.com example.com', 'https://api.example.com/', true],
    ['*', 'https://anything.test/', true],
    ['localhost', 'http://127.0.0.1:8000/', false],
    ['127.0.0.1', 'http://127.0.0.1:8000/', true],
    ['10.0.0.0/8', 'http://10.1.2.3:8000/', true],
    ['10.0.0.0/16', 'http://10.1.2.3:8000/', false],
    ['fd00::/8', 'http://[fd12::1]:8000/', true],
    ['[::1]', 'http://[::1]:8000/', true],
    ['::1', 'http://[::1]:8000/', true],
    ['example.com:443', 'https://api.example.com/', true],
    ['example.com:8443', 'https://api.example.com/', false],
    ['127.0.0.1:8000', 'http://127.0.0.1:8000/', true],
    ['[::1]:9', 'http://[::1]:8000/', false],
    ['', 'https://api.example.com/', false],
  ])('%j for %s: %s', (entry, target, expected) => {
    expect(bypassesProxy(new URL(target), entry)).toBe(expected);
  });
});
