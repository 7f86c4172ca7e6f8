/**
 * Goodput against an endpoint that limits you: what users feel. Each situation runs a simulator
 * playing a provider (its own process) and, one after the other, chatbatch, the `openai` SDK
 * under p-limit and the cookbook's approach (see baseline-clients.ts). For each it prints the
 * run's time as a share of the limit's ideal time (1.00: the whole limit used from the first
 * request), the share of requests the limiter rejected, and the rows that failed.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FaultRates } from '../src/simulator/server.js';
import { BENCH_API_KEY } from './measure.js';
import { baselineClientsScript, cliScript, simScript } from './paths.js';
import { type ProviderLimits, SimProcess, type SimStats } from './sim-control.js';
import { type Column, formatTable, num } from './table.js';

export interface GoodputSituation {
  name: string;
  rows: number;
  latencyMs: number;
  provider: ProviderLimits;
  /** Answers refused at random whatever the pace (bare 429s with `retry-after: 0`: a noisy gateway). */
  faults?: Partial<FaultRates>;
  /** chatbatch's flags beyond input, base URL, model and out. */
  chatbatchArgs: string[];
  /** The SDK's concurrency (p-limit), and what the cookbook is told (it is always told the limits). */
  sdkConcurrency: number;
  maxTokens?: number;
  /** The ideal time in ms, from the simulator's counters (the tokens charged, for a TPM limit). */
  idealMs(stats: SimStats): number;
  /** Targets (issue 41): least share of the ideal, most share rejected. */
  target: { share: number; rejected: number } | null;
}

const BURST_MS = 1_000;

export function goodputSituations(quick: boolean): GoodputSituation[] {
  const scale = quick ? 0.4 : 1;
  const rows = (full: number) => Math.round(full * scale);
  const rpmIdeal = (count: number, rpm: number) => () => (count / rpm) * 60_000;
  const rpmRows = rows(1_500);
  const tpmRows = rows(1_000);
  const inFlightRows = rows(3_000);
  const nginxRows = quick ? 16 : 38;
  const strictRows = quick ? 80 : 200;
  // The three situations at 3,000 requests a minute share all but the headers, flags and target.
  const rpm3000 = {
    rows: rpmRows,
    latencyMs: 500,
    sdkConcurrency: 64,
    idealMs: rpmIdeal(rpmRows, 3_000),
  };
  return [
    {
      ...rpm3000,
      name: 'RPM limit, headers, no flags',
      provider: { rpm: 3_000, burstMs: BURST_MS, limitHeaders: 'openai' },
      chatbatchArgs: [],
      target: { share: 0.95, rejected: 0.02 },
    },
    {
      name: 'TPM limit, headers, max_tokens 200, no flags',
      rows: tpmRows,
      latencyMs: 500,
      provider: { tpm: 400_000, burstMs: BURST_MS, limitHeaders: 'openai' },
      chatbatchArgs: [],
      sdkConcurrency: 64,
      maxTokens: 200,
      idealMs: (stats) => (stats.tokensCharged / 400_000) * 60_000,
      target: { share: 0.95, rejected: 0.02 },
    },
    {
      ...rpm3000,
      name: 'RPM limit, headers, told --rpm 3000',
      provider: { rpm: 3_000, burstMs: BURST_MS, limitHeaders: 'openai' },
      chatbatchArgs: ['--rpm', '3000'],
      target: { share: 0.95, rejected: 0.02 },
    },
    {
      ...rpm3000,
      name: 'RPM limit, bare 429s, --concurrency 64',
      provider: { rpm: 3_000, burstMs: BURST_MS, limitHeaders: 'none' },
      chatbatchArgs: ['--concurrency', '64'],
      target: { share: 0.85, rejected: 0.1 },
    },
    {
      // What a provider without limit headers looks like to a run nobody tuned: answers of
      // seconds, so the automatic concurrency must reach 100 in flight, past the bucket's burst.
      name: 'RPM limit, bare 429s, no flags, 2 s answers',
      rows: rpmRows,
      latencyMs: 2_000,
      provider: { rpm: 3_000, burstMs: BURST_MS, limitHeaders: 'none' },
      chatbatchArgs: [],
      sdkConcurrency: 64,
      idealMs: rpmIdeal(rpmRows, 3_000),
      target: null,
    },
    {
      name: '64 in flight at most, --concurrency 256',
      rows: inFlightRows,
      latencyMs: 500,
      provider: { maxInFlight: 64, limitHeaders: 'none' },
      chatbatchArgs: ['--concurrency', '256'],
      sdkConcurrency: 256,
      idealMs: () => (inFlightRows * 500) / 64,
      target: { share: 0.85, rejected: 0.1 },
    },
    {
      // The same limiter at a size where finding its rate (5 to 8 429s whatever the run's
      // length) is not most of the run.
      name: '10 r/s, no burst, bare 429s (nginx limit_req), 200 rows',
      rows: strictRows,
      latencyMs: 5,
      provider: { rpm: 600, burstMs: 100, limitHeaders: 'none' },
      chatbatchArgs: [],
      sdkConcurrency: 8,
      idealMs: rpmIdeal(strictRows, 600),
      target: { share: 0.85, rejected: 0.1 },
    },
    ...refusedAtRandom(rows(3_000)),
    {
      name: '2 r/s, no burst, bare 429s (nginx limit_req)',
      rows: nginxRows,
      latencyMs: 5,
      provider: { rpm: 120, burstMs: 500, limitHeaders: 'none' },
      chatbatchArgs: [],
      sdkConcurrency: 8,
      idealMs: rpmIdeal(nginxRows, 120),
      target: { share: 0.85, rejected: 0.1 },
    },
  ];
}

/**
 * No limit, 200 ms answers, and 429s at random: the same rows with none, 1% and 5% of requests
 * refused. The ideal is what the concurrency allows (the automatic ceiling of 256, or 64), so
 * the share without 429s is what the automatic concurrency's start costs; the others read
 * against it.
 */
function refusedAtRandom(rows: number): GoodputSituation[] {
  const situation = (name: string, share: number, concurrency: number | null): GoodputSituation => ({
    name,
    rows,
    latencyMs: 200,
    provider: {},
    ...(share > 0 ? { faults: { rateLimit: share } } : {}),
    chatbatchArgs: concurrency === null ? [] : ['--concurrency', String(concurrency)],
    sdkConcurrency: concurrency ?? 256,
    idealMs: () => (rows * 200) / (concurrency ?? 256),
    target: null,
  });
  return [
    situation('no limit, no 429s, no flags', 0, null),
    situation('no limit, 1% refused at random, no flags', 0.01, null),
    situation('no limit, 5% refused at random, no flags', 0.05, null),
    situation('no limit, 5% refused at random, --concurrency 64', 0.05, 64),
  ];
}

export interface GoodputResult {
  situation: string;
  client: string;
  wallMs: number;
  share: number;
  rejected: number;
  requests: number;
  failedRows: number;
  target: GoodputSituation['target'];
}

const CLIENTS = ['chatbatch', 'openai SDK + p-limit', 'cookbook (told, 15 s pause)'] as const;

export async function runGoodput(quick: boolean, only: string[] | null, chatbatchOnly = false): Promise<GoodputResult[]> {
  const results: GoodputResult[] = [];
  for (const situation of goodputSituations(quick)) {
    if (only && !only.some((name) => situation.name.includes(name))) continue;
    for (const client of chatbatchOnly ? CLIENTS.slice(0, 1) : CLIENTS) {
      const result = await runOne(situation, client);
      process.stderr.write(
        `  ${situation.name} / ${client}: ${num(result.share, 2)} of ideal, ${num(result.rejected * 100, 1)}% rejected\n`,
      );
      results.push(result);
    }
  }
  return results;
}

async function runOne(situation: GoodputSituation, client: (typeof CLIENTS)[number]): Promise<GoodputResult> {
  const dir = await mkdtemp(join(tmpdir(), 'chatbatch-goodput-'));
  const faults = situation.faults ? { faults: situation.faults, retryAfterMs: 0, seed: 1 } : {};
  const sim = await SimProcess.start(simScript, { latencyMs: situation.latencyMs, provider: situation.provider, ...faults });
  try {
    const input = join(dir, 'in.jsonl');
    const lines = Array.from({ length: situation.rows }, (_, i) =>
      JSON.stringify({ id: `r${i}`, prompt: `question ${i}: what is ${i} + ${i}?` }),
    );
    await writeFile(input, `${lines.join('\n')}\n`);
    // chatbatch sends max_tokens when its job asks, as the other clients do when told.
    if (situation.maxTokens) await writeFile(join(dir, 'job.json'), JSON.stringify({ params: { max_tokens: situation.maxTokens } }));
    const started = performance.now();
    const { failedRows } = await runClient(client, situation, input, sim.url, dir);
    const wallMs = performance.now() - started;
    const stats = await sim.stats();
    // Every 429, the limits' and those at random alike.
    const rejected = stats.byStatus['429'] ?? 0;
    return {
      situation: situation.name,
      client,
      wallMs,
      share: situation.idealMs(stats) / wallMs,
      rejected: stats.requests === 0 ? 0 : rejected / stats.requests,
      requests: stats.requests,
      failedRows,
      target: client === 'chatbatch' ? situation.target : null,
    };
  } finally {
    await sim.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function runClient(
  client: (typeof CLIENTS)[number],
  situation: GoodputSituation,
  input: string,
  baseUrl: string,
  dir: string,
): Promise<{ failedRows: number }> {
  const env = { ...process.env, BENCH_API_KEY, CHATBATCH_API_KEY: BENCH_API_KEY };
  const told = [
    '--rpm',
    String(situation.provider.rpm ?? 1_000_000),
    ...(situation.provider.tpm ? ['--tpm', String(situation.provider.tpm)] : []),
  ];
  const maxTokens = situation.maxTokens ? ['--max-tokens', String(situation.maxTokens)] : [];
  const args =
    client === 'chatbatch'
      ? [
          cliScript,
          'run',
          input,
          '--base-url',
          baseUrl,
          '--model',
          'sim',
          '--out',
          join(dir, 'out'),
          '--quiet',
          ...(situation.maxTokens ? ['--job', join(dir, 'job.json')] : []),
          ...situation.chatbatchArgs,
        ]
      : client === 'openai SDK + p-limit'
        ? [baselineClientsScript, 'sdk', input, '--base-url', baseUrl, '--concurrency', String(situation.sdkConcurrency), ...maxTokens]
        : [baselineClientsScript, 'cookbook', input, '--base-url', baseUrl, ...told, ...maxTokens];
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.resume();
  await new Promise((resolve) => child.on('exit', resolve));
  if (client === 'chatbatch') return { failedRows: await chatbatchFailures(join(dir, 'out', 'manifest.json')) };
  const counts = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { failed?: number };
  return { failedRows: counts.failed ?? situation.rows };
}

async function chatbatchFailures(manifestPath: string): Promise<number> {
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { counts: { failed: number; pending: number } };
  return manifest.counts.failed + manifest.counts.pending;
}

export function formatGoodput(results: GoodputResult[]): string {
  const columns: Column<GoodputResult>[] = [
    { header: 'situation', value: (r) => r.situation, align: 'left' },
    { header: 'client', value: (r) => r.client, align: 'left' },
    { header: 'time', value: (r) => `${num(r.wallMs / 1000, 1)} s` },
    { header: 'share of ideal', value: (r) => num(r.share, 2) },
    { header: 'rejected', value: (r) => `${num(r.rejected * 100, 1)}%` },
    { header: 'requests', value: (r) => String(r.requests) },
    { header: 'rows failed', value: (r) => String(r.failedRows) },
    { header: 'target (chatbatch)', value: (r) => targetText(r) },
  ];
  return formatTable(columns, results);
}

function targetText(result: GoodputResult): string {
  if (!result.target) return result.client === 'chatbatch' ? (result.failedRows === 0 ? 'every row: met' : 'every row: MISSED') : '';
  const met = result.share >= result.target.share && result.rejected <= result.target.rejected && result.failedRows === 0;
  return `>= ${result.target.share}, <= ${result.target.rejected * 100}%: ${met ? 'met' : 'MISSED'}`;
}
