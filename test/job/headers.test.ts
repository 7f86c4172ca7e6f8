import { describe, expect, it } from 'vitest';
import { headerProblem, headersIdentity, parseHeaderFlag, resolveHeaders } from '../../src/job/headers.js';

describe('parseHeaderFlag (curl form)', () => {
  it.each([
    ['x-portkey-provider: openai', 'x-portkey-provider', 'openai'],
    ['X-Title:   My app  ', 'X-Title', 'My app'],
    ['HTTP-Referer:https://example.com/a?b=c', 'HTTP-Referer', 'https://example.com/a?b=c'],
    ['x-empty:', 'x-empty', ''],
  ])('%j → %s = %j', (text, name, value) => {
    expect(parseHeaderFlag(text)).toEqual({ ok: true, header: { name, value } });
  });

  it('refuses a header without a colon, quoting only its first word (the rest may be a secret)', () => {
    const parsed = parseHeaderFlag('x-api-key sk-secret-value');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.problem).toBe(`--header starting "x-api-key" has no colon: write it as curl does, --header 'Name: value'`);
      expect(parsed.problem).not.toContain('sk-secret');
    }
  });
});

describe('headerProblem', () => {
  it.each([
    ['x-portkey-provider', 'openai'],
    ['Helicone-Auth', 'Bearer ${HELICONE_API_KEY}'],
    ['api-key', '${AZURE_OPENAI_API_KEY}'],
    ['x-price', '5$ a month'],
    ['Cookie', 'a=b; c=d'],
  ])('accepts %s: %s', (name, value) => {
    expect(headerProblem(name, value)).toBeNull();
  });

  it.each([
    'Authorization',
    'Content-Type',
    'Content-Length',
    'Accept',
    'Accept-Encoding',
    'User-Agent',
    'X-Client-Request-Id',
    'Host',
    'Connection',
    'Keep-Alive',
    'Transfer-Encoding',
    'TE',
    'Trailer',
    'Upgrade',
    'Expect',
    'Proxy-Authorization',
    'Proxy-Connection',
  ])('refuses %s, in any case (the list the README gives)', (name) => {
    expect(headerProblem(name, 'x')).toMatch(/^cannot be set this way: /);
    expect(headerProblem(name.toLowerCase(), 'x')).toMatch(/^cannot be set this way: /);
  });

  it.each([
    ['Authorization', 'Bearer x', 'cannot be set this way: chatbatch sends the key as "Authorization: Bearer <key>"'],
    ['authorization', 'x', 'cannot be set this way'],
    ['Content-Type', 'text/plain', 'cannot be set this way: chatbatch sets it itself (application/json)'],
    ['content-length', '1', 'cannot be set this way'],
    ['HOST', 'evil.example', 'cannot be set this way: it belongs to the HTTP connection'],
    ['Transfer-Encoding', 'chunked', 'it belongs to the HTTP connection'],
    ['Connection', 'close', 'it belongs to the HTTP connection'],
    ['Proxy-Authorization', 'Basic x', 'meant for a proxy'],
    ['Accept-Encoding', 'gzip', 'which encodings it can decode'],
    ['X-Client-Request-Id', 'a', 'one per row and attempt'],
    ['', 'v', 'a header needs a name before the colon'],
    ['a b', 'v', 'not a header name'],
    ['x-é', 'v', 'not a header name'],
    ['x-a', '', 'the value is empty'],
    ['x-a', 'one\r\nInjected: two', 'U+000D at position 4'],
    ['x-a', 'tab\there', 'U+0009 at position 4'],
    ['x-a', 'café', 'U+00E9 at position 4'],
    ['x-a', '${1ST}', '"${1ST}" does not name an environment variable'],
    ['x-a', '${}', '"${}" does not name an environment variable'],
    ['x-a', 'Bearer ${KEY', '"${" without a closing "}"'],
  ])('refuses %j: %j', (name, value, problem) => {
    expect(headerProblem(name, value)).toContain(problem);
  });
});

describe('resolveHeaders', () => {
  it('takes the job headers, a flag replacing the one of the same name whatever its case', () => {
    const { headers, problems } = resolveHeaders(
      ['x-portkey-provider: anthropic', 'X-Title: from flag'],
      { 'X-Portkey-Provider': 'openai', 'HTTP-Referer': 'https://a.example' },
      {},
    );
    expect(problems).toEqual([]);
    expect(headers.sent).toEqual({ 'x-portkey-provider': 'anthropic', 'HTTP-Referer': 'https://a.example', 'X-Title': 'from flag' });
    expect(headers.shown).toEqual(headers.sent);
    expect(headers.secrets).toEqual([]);
  });

  it('fills ${NAME} from the environment (trimmed), shows it unexpanded and lists the filled values as secrets', () => {
    const env = { PORTKEY_API_KEY: ' pk-0123456789abcdef\r\n', USER_ID: 'u-7' };
    const { headers, problems } = resolveHeaders(
      ['x-portkey-api-key: ${PORTKEY_API_KEY}', 'x-tag: user ${USER_ID} / ${USER_ID}'],
      undefined,
      env,
    );
    expect(problems).toEqual([]);
    expect(headers.shown).toEqual({ 'x-portkey-api-key': '${PORTKEY_API_KEY}', 'x-tag': 'user ${USER_ID} / ${USER_ID}' });
    expect(headers.sent).toEqual({ 'x-portkey-api-key': 'pk-0123456789abcdef', 'x-tag': 'user u-7 / u-7' });
    expect(headers.secrets).toContain('pk-0123456789abcdef');
    expect(headers.secrets).toContain('u-7');
    expect(headers.secrets).toContain('user u-7 / u-7');
  });

  it('names a missing or empty variable, and a variable holding what a header cannot carry, never its value', () => {
    const env = { EMPTY: '  ', TWO_LINES: 'secret-line-1\nsecret-line-2' };
    const { problems } = resolveHeaders(['x-a: ${MISSING}', 'x-b: ${EMPTY}', 'x-c: ${TWO_LINES}'], undefined, env);
    expect(problems).toEqual([
      'header "x-a": the environment variable MISSING is not set',
      'header "x-b": the environment variable EMPTY is empty',
      'header "x-c": the environment variable TWO_LINES holds a character that cannot be sent in an HTTP header (U+000A at position 14 of 27)',
    ]);
    expect(problems.join('\n')).not.toContain('secret-line');
  });

  it('refuses a header given twice by the same source, and names the source of each problem', () => {
    expect(resolveHeaders(['x-a: 1', 'X-A: 2'], undefined, {}).problems).toEqual(['--header "X-A": given twice']);
    expect(resolveHeaders(undefined, { 'x-a': '1', 'X-A': '2' }, {}).problems).toEqual(['headers "X-A": given twice']);
    expect(resolveHeaders(['Host: x'], { Authorization: 'y' }, {}).problems).toEqual([
      expect.stringMatching(/^headers "Authorization": cannot be set this way/),
      expect.stringMatching(/^--header "Host": cannot be set this way/),
    ]);
  });
});

describe('headersIdentity (part of the request fingerprint)', () => {
  it('is the names (any case) and values as written, in any order', () => {
    expect(headersIdentity({})).toBe('');
    expect(headersIdentity({ 'X-B': '2', 'x-a': '${K}' })).toBe(headersIdentity({ 'x-a': '${K}', 'x-b': '2' }));
    expect(headersIdentity({ 'x-a': '1' })).not.toBe(headersIdentity({ 'x-a': '2' }));
  });
});
