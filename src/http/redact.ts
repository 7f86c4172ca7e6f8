import { maskKey } from './key-mask.js';

/**
 * Keys the run holds, so that text coming from a server can be cleaned before it is written or
 * printed: some gateways echo the key in an error message ("Incorrect API key provided: sk-…")
 * or dump the request headers in an error page. Process-wide because the text crosses many
 * layers (client, records, fatal message, log) and the CLI holds one key per process.
 */
const secrets = new Set<string>();

/** Keys shorter than this are not searched for: they would match ordinary text. */
const MIN_SECRET_LENGTH = 8;

export function registerSecret(secret: string): void {
  if (secret.length >= MIN_SECRET_LENGTH) secrets.add(secret);
}

/** `text` with every registered key replaced by its mask. */
export function redactSecrets(text: string): string {
  let result = text;
  for (const secret of secrets) {
    if (result.includes(secret)) result = result.split(secret).join(`[key ${maskKey(secret)}]`);
  }
  return result;
}
