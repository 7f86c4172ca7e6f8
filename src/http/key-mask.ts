/**
 * A key's leading and trailing characters, enough to tell keys apart in a console, never enough
 * to use: at most 8 characters and never more than a third of the key.
 */
export function maskKey(key: string): string {
  if (key.length >= 24) return `${key.slice(0, 4)}…${key.slice(-4)}`;
  if (key.length >= 12) return `${key.slice(0, 2)}…${key.slice(-2)}`;
  return '***';
}
