/**
 * A duration written the way Go's time.Duration prints it, as OpenAI's reset headers are:
 * `20ms`, `1s`, `6m0s`, `1m26.4s`, `1h0m0s`. Rounded up to a whole millisecond.
 */
export function goDuration(ms: number): string {
  const total = Math.ceil(ms);
  if (!(total > 0)) return '0s';
  if (total < 1000) return `${total}ms`;
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const seconds = `${(total % 60_000) / 1000}s`;
  if (hours > 0) return `${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${minutes}m${seconds}`;
  return seconds;
}
