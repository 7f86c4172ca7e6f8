import type { ServerResponse } from 'node:http';
import { echoedForms } from '../support/echoed-forms.js';
import { type ReceivedRequest, sendJson } from '../support/scripted-server.js';

/** Keys that test what masking must survive: long, the shortest treated as a secret (8 characters), and full of characters escapers change. */
export const ECHO_TEST_KEYS = ['sk-echoed-secret-key-0123456789abcdef', 'sk-12345', 'sk-"q&a<b>c\\d-0123456789'];

export const keyOf = (request: ReceivedRequest) => String(request.headers.authorization).replace(/^Bearer /, '');
const isToken = (text: string) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(text);

export function completion(key: string, extra: Record<string, unknown> = {}) {
  return {
    id: key,
    object: 'chat.completion',
    model: key,
    system_fingerprint: key,
    choices: [{ index: 0, message: { role: 'assistant', content: 'fine' }, finish_reason: key }],
    usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, [key]: key, details: { note: `used ${key}` } },
    ...extra,
  };
}

export function text(
  response: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': contentType, ...headers });
  response.end(body);
}

/** Each scenario answers one request; `key` is what the client sent. */
export const ECHO_SCENARIOS: Record<string, (key: string, response: ServerResponse) => void> = {
  'a success with the key in a trace header, id, model, finish_reason and usage': (key, response) => {
    const headers: Record<string, string> = { 'x-request-id': key, 'x-echo': `Bearer ${key}` };
    if (isToken(key)) headers[`x-${key}`] = 'seen';
    sendJson(response, 200, completion(key), headers);
  },
  'a success written by Go (\\u0026 for &, \\u003c for <), the key in the body id only': (key, response) => {
    const body = JSON.stringify(completion(key)).replace(/&/g, '\\u0026').replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
    text(response, 200, 'application/json', body);
  },
  'a 400 whose error.code is the key and whose message holds the request headers as JSON': (key, response) =>
    sendJson(response, 400, {
      error: { code: key, type: key, message: `bad request: ${JSON.stringify({ authorization: `Bearer ${key}` })}` },
    }),
  'a 200 carrying an error object (bad_response)': (key, response) =>
    sendJson(response, 200, { id: key, error: { code: key, message: `rejected ${key}` } }),
  'a 200 that is not JSON (bad_response excerpt)': (key, response) => text(response, 200, 'text/plain', `upstream said: Bearer ${key}`),
  'a 502 HTML page with the key raw, escaped, in a link and in a script': (key, response) => {
    const forms = echoedForms(key);
    text(
      response,
      502,
      'text/html',
      `<html><head><title>Bad gateway ${forms['HTML-escaped (named)']}</title><script>var auth = "${forms['JSON-escaped']}";</script></head>` +
        `<body><h1>Bad gateway</h1><pre>authorization: Bearer ${key}</pre><a href="/retry?key=${forms['percent-encoded']}">retry</a> ${forms['HTML-escaped (decimal)']}</body></html>`,
    );
  },
  'a 500 text body with the key straddling the 300-character excerpt cut': (key, response) =>
    text(response, 500, 'text/plain', `${'x'.repeat(295)}${key} and more text after it`),
  'a 500 JSON detail with the key straddling the cut': (key, response) => sendJson(response, 500, { detail: `${'y'.repeat(295)}${key}` }),
  'a 500 JSON error with no message, the key straddling the cut of its excerpt': (key, response) =>
    sendJson(response, 500, { error: { info: `${'z'.repeat(280)}${key}` } }),
  'a 400 error.message over 64 KiB, the key straddling where it is cut': (key, response) =>
    sendJson(response, 400, { error: { code: 'too_long', message: `${'m'.repeat(64 * 1024 - 5)}${key} ${'t'.repeat(100_000)}` } }),
  'a 503 redirecting with the key percent-encoded in Location and the trace id': (key, response) =>
    text(response, 503, 'text/plain', 'moved', {
      location: `https://gateway.example/login?key=${encodeURIComponent(key)}`,
      'x-request-id': encodeURIComponent(key),
    }),
};

/** Every form of the key, and of its first five characters (what a cut excerpt would keep). */
export function leaksIn(found: string, key: string): string[] {
  const csv = (part: string) => part.replace(/"/g, '""');
  const forms = new Set([key, key.slice(0, 5)].flatMap((part) => [...Object.values(echoedForms(part)), csv(part)]));
  return [...forms].filter((form) => found.includes(form));
}
