import type { ServerResponse } from 'node:http';
import type { SimContext } from './context.js';
import type { Refusal } from './provider-limits.js';

/** What nginx's limit_req answers: no header, an HTML page, as a proxy's limiter does. */
const BARE_429 =
  '<html>\r\n<head><title>429 Too Many Requests</title></head>\r\n<body>\r\n<center><h1>429 Too Many Requests</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/**
 * A 429 from the provider limits. With OpenAI headers: OpenAI's body (type `requests` or
 * `tokens`, code `rate_limit_exceeded`), retry-after and retry-after-ms beside the
 * x-ratelimit-* headers already set; else nginx's bare page.
 */
export function sendLimited(context: SimContext, res: ServerResponse, requestId: string, refusal: Refusal): void {
  context.counters.limited(refusal.cause);
  context.counters.count(429);
  if (context.options.limitHeaders === 'none') {
    res.writeHead(429, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(BARE_429) });
    res.end(BARE_429);
    return;
  }
  const type = refusal.cause === 'tokens' ? 'tokens' : 'requests';
  const text = JSON.stringify({ error: { message: refusal.message, type, param: null, code: 'rate_limit_exceeded' } });
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-request-id': requestId,
  };
  if (refusal.retryAfterMs !== null) {
    headers['retry-after'] = String(Math.ceil(refusal.retryAfterMs / 1000));
    headers['retry-after-ms'] = String(Math.ceil(refusal.retryAfterMs));
  }
  res.writeHead(429, headers);
  res.end(text);
}
