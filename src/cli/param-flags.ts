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
    const parsed = jsonOrText(value);
    if (parsed === NOT_FINITE)
      throw new Error(`--param ${name}: ${value} is past the largest number JSON can carry (it would be sent as null)`);
    Object.defineProperty(params, name, { value: parsed, enumerable: true, writable: true, configurable: true });
  }
  return params;
}

const NOT_FINITE = Symbol('not finite');

/** The value as JSON, or as text; NOT_FINITE for a JSON number too large for a double (`1e999`: Infinity, sent as null). */
function jsonOrText(value: string): unknown {
  try {
    let finite = true;
    const parsed: unknown = JSON.parse(value, (_key, item: unknown) => {
      if (typeof item === 'number' && !Number.isFinite(item)) finite = false;
      return item;
    });
    return finite ? parsed : NOT_FINITE;
  } catch {
    return value;
  }
}
