import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliResult, startCli } from '../support/cli.js';
import { runCli } from '../support/cli-in-process.js';
import { runAgainstProvider } from '../support/provider-run.js';

let stop: (() => Promise<CliResult>) | null = null;
afterEach(async () => {
  await stop?.();
  stop = null;
});

/** Starts `chatbatch simulate` with `args`; resolves with the URL it prints. */
async function simulate(args: string[]): Promise<string> {
  const { child, done } = startCli(['simulate', ...args]);
  stop = () => {
    child.kill('SIGTERM');
    return done;
  };
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) return line.trim();
  throw new Error(`chatbatch simulate printed no URL: ${(await done).stderr}`);
}

const ask = (url: string) =>
  fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim', messages: [{ role: 'user', content: 'hi' }] }),
  });

describe('chatbatch simulate playing a provider', () => {
  it('takes --rpm and --limit-headers and counts what it saw on GET /__stats', async () => {
    const url = await simulate(['--rpm', '1', '--limit-headers', 'none']);
    const first = await ask(url);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit-requests')).toBeNull();
    const second = await ask(url);
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBeNull();
    const stats = (await (await fetch(`${url}/__stats`)).json()) as Record<string, unknown>;
    expect(stats).toMatchObject({ requests: 2, byStatus: { 200: 1, 429: 1 }, limited: { requests: 1, tokens: 0, inFlight: 0 } });
    expect(stats.lastRequestAt).toBeGreaterThanOrEqual(stats.firstRequestAt as number);
  });

  it('sends OpenAI headers by default with --tpm', async () => {
    const url = await simulate(['--tpm', '1000']);
    const answer = await ask(url);
    expect(answer.headers.get('x-ratelimit-limit-tokens')).toBe('1000');
    expect(answer.headers.get('x-ratelimit-remaining-tokens')).toBe('995');
  });

  it.each([
    [['--rpm', '0'], '--rpm must be a positive integer'],
    [['--max-in-flight', 'x'], '--max-in-flight must be a positive integer'],
    [['--limit-headers', 'azure'], 'limit-headers'],
  ])('refuses %j with exit 2', async (args, message) => {
    const result = await runCli(['simulate', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

describe('runAgainstProvider (the harness for rate-limit CLI tests)', () => {
  it("runs chatbatch against the simulator playing a provider and returns the simulator's counters with the records", async () => {
    const run = await runAgainstProvider({ rpm: 600, tpm: 100_000, latencyMs: 1 }, 12, ['--concurrency', '4']);
    expect(run.result.code, run.result.stderr).toBe(0);
    expect(run.output).toHaveLength(12);
    expect(run.stats).toMatchObject({ requests: 12, limited: { requests: 0, tokens: 0, inFlight: 0 } });
    expect(run.stats.maxAdmittedInFlight).toBeLessThanOrEqual(4);
    expect(run.stats.tokensCharged).toBeGreaterThan(0);
  });
});
