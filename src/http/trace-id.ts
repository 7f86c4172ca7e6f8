/** Header names providers and gateways use for a request/trace ID, in the order we prefer them. */
export const TRACE_ID_HEADERS: readonly string[] = [
  'x-request-id',
  'request-id',
  'apim-request-id',
  'x-ds-trace-id',
  'x-litellm-call-id',
  'x-amzn-requestid',
  'x-ms-request-id',
  'x-trace-id',
  'x-correlation-id',
  'traceparent',
];

/** The server's ID for this request: the first trace header present, else the body `id`. */
export function pickTraceId(headers: Readonly<Record<string, string>>, bodyId?: unknown): string | null {
  for (const name of TRACE_ID_HEADERS) {
    const value = headers[name];
    if (value) return value;
  }
  return typeof bodyId === 'string' && bodyId !== '' ? bodyId : null;
}
