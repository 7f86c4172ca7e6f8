/**
 * A key's leading and trailing characters, enough to tell keys apart in a console, never enough
 * to use: at most 8 characters and never more than a third of the key.
 *
 *   length ≥ 24   first 4 + last 4   "sk-a…wxyz"
 *   16 – 23       first 2 + last 2   "sk…yz"   (4 + 4 would show half of a 16-character key)
 *   6 – 15        last 2             "…yz"
 *   shorter       "***"
 */
export function maskKey(key: string): string {
  const length = key.length;
  if (length >= 24) return `${key.slice(0, 4)}…${key.slice(-4)}`;
  if (length >= 16) return `${key.slice(0, 2)}…${key.slice(-2)}`;
  if (length >= 6) return `…${key.slice(-2)}`;
  return '***';
}
