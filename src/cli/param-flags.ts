/**
 * `--param NAME=VALUE` (repeatable): an optional request parameter from the command line. VALUE
 * is taken as JSON when it parses (`temperature=0.2`, `stop=["\n"]`, `response_format={"type":"json_object"}`),
 * else as a string (`stop=END`). Names and values are checked with the job file's params.
 */
export function paramsFromFlags(values: unknown): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const item of [values].flat()) {
    const text = String(item);
    const at = text.indexOf('=');
    if (at <= 0) throw new Error(`--param needs NAME=VALUE (e.g. --param temperature=0.2), got "${text}"`);
    const name = text.slice(0, at).trim();
    const value = text.slice(at + 1);
    Object.defineProperty(params, name, { value: jsonOrText(value), enumerable: true, writable: true, configurable: true });
  }
  return params;
}

function jsonOrText(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
