/**
 * The paced path (issue 41): what a run costs and how much of each limit it fills when a
 * provider's limit, not the client, sets the pace.
 *
 * - `cpu`: the same rows at the same rate, once paced by a 30,000 RPM limit learned from OpenAI's
 *   headers (no flags) and once paced by --concurrency alone against the same headers of a limit
 *   that never binds (100 in flight x 200 ms answers = the same 500 rows a second). Reported: CPU per row of each,
 *   their ratio, timers and abort listeners per row (bench/call-counter.ts), the share of the
 *   limit filled and the requests rejected. Rounds alternate the order.
 * - `models`: three models with limits of their own (6,000 / 12,000 / 24,000 RPM) on more rows
 *   than any lead: each model's rate while it ran, as a share of its own limit.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BENCH_API_KEY, countLines, runMeasured } from './measure.js';
import { cliScript, simScript, usageHook } from './paths.js';
import { SimProcess, type SimSettings } from './sim-control.js';
import { type Column, formatTable, num } from './table.js';

const callCounter = pathToFileURL(join(import.meta.dirname, 'call-counter.js')).href;

export interface PacedRun {
  situation: string;
  client: string;
  round: number;
  rows: number;
  requests: number;
  wallMs: number;
  /** The ideal time (rows at the limit's rate) over the wall time. */
  share: number;
  rejected: number;
  failedRows: number;
  cpuMsPerRow: number | null;
  timersPerRow: number | null;
  listenersPerRow: number | null;
  peakRssMb: number | null;
  /** Each model's admitted rate as a share of its own limit (the `models` situation). */
  modelShares?: Record<string, number>;
}

interface Client {
  name: string;
  sim: SimSettings;
  args: string[];
  /** Requests a second the run can go at most: the limit, or what --concurrency allows. */
  perSecond: number;
}

const LATENCY_MS = 200;
const RPM = 30_000;

function cpuClients(): Client[] {
  return [
    {
      name: `paced by a ${RPM.toLocaleString('en-US')} RPM limit (headers, no flags)`,
      sim: { latencyMs: LATENCY_MS, provider: { rpm: RPM, burstMs: 1_000, limitHeaders: 'openai' } },
      args: [],
      perSecond: RPM / 60,
    },
    {
      // The same provider's headers on every answer, for a limit that never binds: what differs
      // between the two is only what paces the run, not whether answers carry headers to read.
      name: 'paced by --concurrency 100 alone (a limit that never binds)',
      sim: { latencyMs: LATENCY_MS, provider: { rpm: 1_000_000, burstMs: 1_000, limitHeaders: 'openai' } },
      args: ['--concurrency', '100'],
      perSecond: 100 / (LATENCY_MS / 1000),
    },
  ];
}

export const MODEL_LIMITS: Record<string, { rpm: number }> = { slow: { rpm: 6_000 }, mid: { rpm: 12_000 }, fast: { rpm: 24_000 } };

function modelsClient(): Client {
  return {
    name: 'three models, 6,000 / 12,000 / 24,000 RPM (headers, no flags)',
    sim: { latencyMs: 300, provider: { modelLimits: MODEL_LIMITS, burstMs: 1_000, limitHeaders: 'openai' } },
    args: Object.keys(MODEL_LIMITS).flatMap((model) => ['--model', model]),
    // The run's ideal time is the slowest model's rows at its limit.
    perSecond: (MODEL_LIMITS.slow!.rpm / 60) * Object.keys(MODEL_LIMITS).length,
  };
}

export async function runPaced(quick: boolean, rounds: number, log: (line: string) => void): Promise<PacedRun[]> {
  const results: PacedRun[] = [];
  const cpuRows = quick ? 3_000 : 10_000;
  for (let round = 1; round <= rounds; round++) {
    const clients = round % 2 === 1 ? cpuClients() : cpuClients().reverse();
    for (const client of clients) results.push(await runOne('cpu', client, cpuRows, round, log));
  }
  results.push(await runOne('models', modelsClient(), quick ? 1_500 : 4_000, 1, log));
  return results;
}

async function runOne(situation: string, client: Client, rows: number, round: number, log: (line: string) => void): Promise<PacedRun> {
  const dir = await mkdtemp(join(tmpdir(), 'chatbatch-paced-'));
  const sim = await SimProcess.start(simScript, client.sim);
  try {
    const input = join(dir, 'in.jsonl');
    const lines = Array.from({ length: rows }, (_, i) => JSON.stringify({ id: `r${i}`, prompt: `question ${i}: what is ${i} + ${i}?` }));
    await writeFile(input, `${lines.join('\n')}\n`);
    const out = join(dir, 'out');
    const callsFile = join(dir, 'calls.json');
    const run = await runMeasured({
      script: cliScript,
      args: [
        'run',
        input,
        '--base-url',
        sim.url,
        '--out',
        out,
        '--quiet',
        ...(client.args.includes('--model') ? [] : ['--model', 'sim']),
        ...client.args,
      ],
      env: { CHATBATCH_API_KEY: BENCH_API_KEY, BENCH_CALLS_FILE: callsFile, NODE_OPTIONS: `--import ${callCounter}` },
      usageHook,
      usageFile: join(dir, 'usage'),
      killAfterMs: 30 * 60_000,
    });
    const stats = await sim.stats();
    const requestsSent = client.args.filter((arg) => arg === '--model').length * rows || rows;
    const calls = JSON.parse(await readFile(callsFile, 'utf8').catch(() => 'null')) as { timers: number; abortListeners: number } | null;
    const rejected = Object.values(stats.limited).reduce((sum, count) => sum + count, 0);
    const cpuMs = run.usage ? run.usage.userMs + run.usage.systemMs : null;
    const result: PacedRun = {
      situation,
      client: client.name,
      round,
      rows,
      requests: stats.requests,
      wallMs: run.wallMs,
      share: requestsSent / client.perSecond / (run.wallMs / 1000),
      rejected: stats.requests === 0 ? 0 : rejected / stats.requests,
      failedRows:
        (await countLines(join(out, 'errors.jsonl'))) +
        (requestsSent - (await countLines(join(out, 'output.jsonl'))) - (await countLines(join(out, 'errors.jsonl')))),
      cpuMsPerRow: cpuMs === null ? null : cpuMs / requestsSent,
      timersPerRow: calls ? calls.timers / requestsSent : null,
      listenersPerRow: calls ? calls.abortListeners / requestsSent : null,
      peakRssMb: run.usage ? run.usage.maxRssKb / 1024 : null,
    };
    if (situation === 'models') result.modelShares = modelShares(stats.byModel);
    log(
      `${situation} / ${client.name} (round ${round}): ${num(result.share, 2)} of ideal, ${num(result.cpuMsPerRow ?? Number.NaN, 3)} ms CPU a row`,
    );
    return result;
  } finally {
    await sim.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Each model's rate, from its first admitted request to its last, as a share of its own limit.
 * The first second's burst (the bucket starts full) is taken out, so a short run is not flattered.
 */
function modelShares(
  byModel: Record<string, { admitted: number; firstAdmittedAt: number | null; lastAdmittedAt: number | null }>,
): Record<string, number> {
  const shares: Record<string, number> = {};
  for (const [model, { rpm }] of Object.entries(MODEL_LIMITS)) {
    const own = byModel[model];
    if (!own || own.firstAdmittedAt === null || own.lastAdmittedAt === null || own.lastAdmittedAt <= own.firstAdmittedAt) continue;
    const burst = rpm / 60; // one second's worth, what the bucket held at the start
    const rate = (own.admitted - burst) / ((own.lastAdmittedAt - own.firstAdmittedAt) / 60_000);
    shares[model] = rate / rpm;
  }
  return shares;
}

export function formatPaced(results: PacedRun[]): string {
  const columns: Array<Column<PacedRun>> = [
    { header: 'situation', value: (r) => r.situation, align: 'left' },
    { header: 'client', value: (r) => r.client, align: 'left' },
    { header: 'round', value: (r) => String(r.round) },
    { header: 'share of ideal', value: (r) => num(r.share, 2) },
    { header: 'rejected', value: (r) => `${num(r.rejected * 100, 1)}%` },
    { header: 'rows failed', value: (r) => String(r.failedRows) },
    { header: 'CPU ms / row', value: (r) => (r.cpuMsPerRow === null ? '-' : num(r.cpuMsPerRow, 3)) },
    { header: 'timers / row', value: (r) => (r.timersPerRow === null ? '-' : num(r.timersPerRow, 1)) },
    { header: 'abort listeners / row', value: (r) => (r.listenersPerRow === null ? '-' : num(r.listenersPerRow, 1)) },
    { header: 'peak RSS MB', value: (r) => (r.peakRssMb === null ? '-' : num(r.peakRssMb, 1)) },
    {
      header: 'per model',
      value: (r) =>
        r.modelShares
          ? Object.entries(r.modelShares)
              .map(([model, share]) => `${model} ${num(share, 2)}`)
              .join(', ')
          : '',
    },
  ];
  return `${formatTable(columns, results)}\n\n${cpuRatios(results)}`;
}

/** CPU per row paced / by concurrency, within each round (the machine's drift hits both alike). */
function cpuRatios(results: PacedRun[]): string {
  const ratios: number[] = [];
  for (const round of new Set(results.filter((r) => r.situation === 'cpu').map((r) => r.round))) {
    const [paced, byConcurrency] = cpuClients().map((client) => results.find((r) => r.round === round && r.client === client.name));
    if (paced?.cpuMsPerRow && byConcurrency?.cpuMsPerRow) ratios.push(paced.cpuMsPerRow / byConcurrency.cpuMsPerRow);
  }
  ratios.sort((a, b) => a - b);
  if (ratios.length === 0) return 'CPU per row, paced / by concurrency: no complete round';
  const median = ratios[Math.floor(ratios.length / 2)]!;
  return `CPU per row, paced / by concurrency (target <= 1.25): ${ratios.map((r) => num(r, 2)).join(', ')}; median ${num(median, 2)}`;
}
