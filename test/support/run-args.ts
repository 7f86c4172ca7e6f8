/**
 * `chatbatch run in.jsonl` against `baseUrl` with model `sim` into `out`, quietly, then `extra`:
 * the command most CLI tests start from, with the flags each test is about after it.
 */
export function runArgs(baseUrl: string, ...extra: string[]): string[] {
  return ['run', 'in.jsonl', '--base-url', baseUrl, '--model', 'sim', '--out', 'out', '--quiet', ...extra];
}
