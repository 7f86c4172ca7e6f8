/**
 * The clients chatbatch's goodput is measured beside, each run as its own process:
 *
 *   node .bench/dist/bench/baseline-clients.js sdk INPUT.jsonl --base-url URL --concurrency N
 *   node .bench/dist/bench/baseline-clients.js cookbook INPUT.jsonl --base-url URL --rpm N [--tpm N] [--max-tokens N]
 *
 * - `sdk`: the `openai` package (its own retries: 2, honouring retry-after) under p-limit, the
 *   way most scripts are written. A row whose retries all meet 429s is lost.
 * - `cookbook`: the approach of OpenAI's cookbook `api_request_parallel_processor.py`: told the
 *   limits, it dispatches from request and token buckets, and after any 429 every request
 *   pauses 15 s; a row gets 5 attempts.
 *
 * The key comes from BENCH_API_KEY. Prints {"ok":N,"failed":M} on stdout.
 */
import { readFileSync } from 'node:fs';
import OpenAI, { RateLimitError } from 'openai';
import pLimit from 'p-limit';

interface Row {
  prompt: string;
}

const [mode, input, ...rest] = process.argv.slice(2);
const flags = new Map<string, string>();
for (let i = 0; i < rest.length; i += 2) flags.set(rest[i]!, rest[i + 1]!);
const baseURL = flags.get('--base-url')!;
const maxTokens = flags.has('--max-tokens') ? Number(flags.get('--max-tokens')) : undefined;
const rows = readFileSync(input!, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as Row);
const client = new OpenAI({ apiKey: process.env.BENCH_API_KEY ?? 'none', baseURL });

function ask(row: Row, maxRetries?: number): Promise<unknown> {
  const body = {
    model: 'sim',
    messages: [{ role: 'user' as const, content: row.prompt }],
    ...(maxTokens ? { max_tokens: maxTokens } : {}),
  };
  return client.chat.completions.create(body, maxRetries === undefined ? {} : { maxRetries });
}

async function sdk(): Promise<{ ok: number; failed: number }> {
  const limit = pLimit(Number(flags.get('--concurrency') ?? 8));
  const results = await Promise.allSettled(rows.map((row) => limit(() => ask(row))));
  const ok = results.filter((result) => result.status === 'fulfilled').length;
  return { ok, failed: rows.length - ok };
}

const COOKBOOK_PAUSE_MS = 15_000;
const COOKBOOK_ATTEMPTS = 5;

async function cookbook(): Promise<{ ok: number; failed: number }> {
  const rpm = Number(flags.get('--rpm'));
  const tpm = flags.has('--tpm') ? Number(flags.get('--tpm')) : Number.POSITIVE_INFINITY;
  // The cookbook's buckets: a minute's capacity, refilled continuously, a request counting its
  // prompt (chars / 4) plus max_tokens.
  let requests = rpm;
  let tokens = tpm;
  let last = Date.now();
  let pausedUntil = 0;
  let ok = 0;
  let failed = 0;
  const queue = rows.map((row) => ({ row, attempts: 0 }));
  const inFlight = new Set<Promise<void>>();
  while (queue.length > 0 || inFlight.size > 0) {
    const now = Date.now();
    requests = Math.min(rpm, requests + ((now - last) * rpm) / 60_000);
    tokens = Math.min(tpm, tokens + ((now - last) * tpm) / 60_000);
    last = now;
    const next = queue[0];
    const cost = next ? Math.ceil(next.row.prompt.length / 4) + (maxTokens ?? 0) : 0;
    if (!next || now < pausedUntil || requests < 1 || tokens < cost) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      continue;
    }
    queue.shift();
    requests -= 1;
    tokens -= cost;
    next.attempts++;
    const sent = ask(next.row, 0).then(
      () => void ok++,
      (error: unknown) => {
        if (error instanceof RateLimitError) pausedUntil = Date.now() + COOKBOOK_PAUSE_MS;
        if (next.attempts < COOKBOOK_ATTEMPTS) queue.push(next);
        else failed++;
      },
    );
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
  }
  return { ok, failed };
}

const result = mode === 'sdk' ? await sdk() : await cookbook();
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(result.failed > 0 ? 1 : 0);
