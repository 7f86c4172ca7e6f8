/**
 * The bench's baseline: a bare undici client loop doing the same work as `chatbatch run` with
 * none of its guarantees (no journal, records, ordering or retries): the practical limit for a
 * Node client. Run as its own process, like the CLI:
 *
 *   node .bench/dist/bench/bare-undici.js INPUT.jsonl --base-url URL --model NAME --concurrency N [--timeout-ms N]
 *
 * The key comes from BENCH_API_KEY. Each JSONL row's `prompt` is sent as
 * {model, messages:[{role:'user',content:prompt}]} to {base-url}/chat/completions through one
 * undici Pool of N keep-alive connections, at most N in flight; the next line is read only when
 * a slot frees. Each body is read and parsed. Prints {"ok":N,"failed":M} on stdout; exits 0 when
 * every row got a 200 with a JSON body, 1 when some did not, 2 on bad usage.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';

interface Options {
  input: string;
  baseUrl: URL;
  model: string;
  concurrency: number;
  timeoutMs: number;
}

function usage(problem: string): never {
  process.stderr.write(
    `bare-undici: ${problem}\nusage: bare-undici INPUT.jsonl --base-url URL --model NAME --concurrency N [--timeout-ms N]\n`,
  );
  process.exit(2);
}

function positiveInteger(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) usage(`${flag} needs a positive integer, got ${JSON.stringify(value ?? '')}`);
  return n;
}

function parseArgs(argv: string[]): Options {
  let input: string | undefined;
  let baseUrl: URL | undefined;
  let model: string | undefined;
  let concurrency: number | undefined;
  let timeoutMs = 30_000;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const value = (): string | undefined => argv[++i];
    if (arg === '--base-url') {
      const text = value() ?? '';
      if (!URL.canParse(text)) usage(`--base-url needs a URL, got ${JSON.stringify(text)}`);
      baseUrl = new URL(text);
    } else if (arg === '--model') model = value();
    else if (arg === '--concurrency') concurrency = positiveInteger(arg, value());
    else if (arg === '--timeout-ms') timeoutMs = positiveInteger(arg, value());
    else if (arg.startsWith('--')) usage(`unknown flag ${arg}`);
    else if (input === undefined) input = arg;
    else usage(`one input file only, got ${arg} as well`);
  }
  if (input === undefined) usage('no input file');
  if (baseUrl === undefined) usage('--base-url is required');
  if (!model) usage('--model is required');
  if (concurrency === undefined) usage('--concurrency is required');
  return { input, baseUrl, model, concurrency, timeoutMs };
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const key = process.env.BENCH_API_KEY ?? '';
  const path = `${options.baseUrl.pathname.replace(/\/+$/, '')}/chat/completions`;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const pool = new Pool(options.baseUrl.origin, {
    connections: options.concurrency,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });

  const send = async (line: string): Promise<boolean> => {
    try {
      const row = JSON.parse(line) as { prompt?: unknown };
      const body = JSON.stringify({ model: options.model, messages: [{ role: 'user', content: String(row.prompt) }] });
      const response = await pool.request({ path, method: 'POST', headers, body });
      JSON.parse(await response.body.text());
      return response.statusCode === 200;
    } catch {
      return false;
    }
  };

  let ok = 0;
  let failed = 0;
  let inFlight = 0;
  let slotFreed: (() => void) | null = null;
  const settle = (succeeded: boolean): void => {
    if (succeeded) ok++;
    else failed++;
    inFlight--;
    const wake = slotFreed;
    slotFreed = null;
    wake?.();
  };
  const lines = createInterface({ input: createReadStream(options.input), crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (line.trim() === '') continue;
      while (inFlight >= options.concurrency) await new Promise<void>((resolve) => (slotFreed = resolve));
      inFlight++;
      void send(line).then(settle);
    }
    while (inFlight > 0) await new Promise<void>((resolve) => (slotFreed = resolve));
  } finally {
    await pool.close();
  }
  process.stdout.write(`${JSON.stringify({ ok, failed })}\n`);
  process.exitCode = failed === 0 ? 0 : 1;
}

try {
  await main();
} catch (error) {
  process.stderr.write(`bare-undici: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
}
