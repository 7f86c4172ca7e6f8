/**
 * The side-by-side comparison behind `npm run bench`: chatbatch and the baselines run the same
 * input against a fresh simulator process each, round after round, the order rotating every
 * round so the shared machine's drift hits all of them; then each metric as chatbatch / baseline,
 * paired within a round, min–median–max over the rounds.
 */

import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { InputCache } from './generate-inputs.js';
import { BENCH_API_KEY, type ClientRun, countLines, runClient, runMeasured } from './measure.js';
import { bareUndiciScript, cliScript, simScript, usageHook } from './paths.js';
import { COMPARE_CPU_NAME, COMPARE_THROUGHPUT_NAME, type ComparePoint } from './points.js';
import { type RatioRow, type RatioSummary, summarize, type Target } from './ratios.js';
import { SimProcess, type SimStats } from './sim-control.js';
import { type Column, formatTable, num } from './table.js';
import { warmUpSimulator } from './warm-up.js';

interface ClientOutcome {
  run: ClientRun;
  ok: number;
  failed: number;
}

interface BenchClient {
  name: string;
  run(point: ComparePoint, input: string, baseUrl: string, scratch: string, killAfterMs: number): Promise<ClientOutcome>;
}

const chatbatch: BenchClient = {
  name: 'chatbatch',
  async run(point, input, baseUrl, scratch, killAfterMs) {
    const outDir = join(scratch, 'out');
    try {
      const run = await runClient({
        cli: cliScript,
        usageHook,
        input,
        baseUrl,
        outDir,
        concurrency: point.concurrency,
        timeoutMs: point.timeoutMs,
        maxAttempts: 6,
        killAfterMs,
      });
      return { run, ok: await countLines(join(outDir, 'output.jsonl')), failed: await countLines(join(outDir, 'errors.jsonl')) };
    } finally {
      await rm(outDir, { recursive: true, force: true });
    }
  },
};

const bareUndici: BenchClient = {
  name: 'bare-undici',
  async run(point, input, baseUrl, scratch, killAfterMs) {
    const run = await runMeasured({
      script: bareUndiciScript,
      args: [
        input,
        '--base-url',
        baseUrl,
        '--model',
        'bench',
        '--concurrency',
        String(point.concurrency),
        '--timeout-ms',
        String(point.timeoutMs),
      ],
      env: { BENCH_API_KEY },
      usageHook,
      usageFile: join(scratch, 'bare-undici.usage'),
      killAfterMs,
    });
    let counts = { ok: 0, failed: 0 };
    try {
      counts = JSON.parse(run.stdoutTail.split('\n').pop() ?? '') as typeof counts;
    } catch {
      /* no summary line: the exit code and stderr say why */
    }
    return { run, ok: counts.ok, failed: counts.failed };
  },
};

/**
 * Ratios are chatbatch / BASELINES[i], the targets against the first. To add a baseline (the
 * `openai` SDK with p-limit, say): a script beside bare-undici.ts with its command line and its
 * JSON summary line, a BenchClient like bareUndici above that runs it, and its name here.
 */
const BASELINES: BenchClient[] = [bareUndici];

export interface Measurement {
  round: number;
  point: string;
  client: string;
  /** 1: this client ran first in its round at this point. */
  order: number;
  rows: number;
  concurrency: number;
  latencyMs: number;
  simWarmUpRequests: number;
  error: string | null;
  notes: string[];
  wallMs?: number;
  rowsPerSec?: number;
  pctOfLimit?: number | null;
  clientUserMs?: number | null;
  clientSystemMs?: number | null;
  cpuMsPerRow?: number | null;
  peakRssMb?: number | null;
  ok?: number;
  failed?: number;
  exitCode?: number | null;
  serverRequests?: number;
  serverMaxInFlight?: number;
  serverMeanInFlight?: number;
}

export interface CompareOptions {
  points: ComparePoint[];
  rounds: number;
  cold: boolean;
  inputs: InputCache;
  workDir: string;
  killAfterMs: number;
  log(line: string): void;
}

export interface Comparison {
  measurements: Measurement[];
  ratios: RatioSummary[];
}

async function measure(
  client: BenchClient,
  point: ComparePoint,
  input: string,
  options: CompareOptions,
  slot: { round: number; order: number },
): Promise<Measurement> {
  const m: Measurement = {
    round: slot.round,
    point: point.name,
    client: client.name,
    order: slot.order,
    rows: point.rows,
    concurrency: point.concurrency,
    latencyMs: point.latencyMs,
    simWarmUpRequests: 0,
    error: null,
    notes: [],
  };
  const scratch = join(options.workDir, `r${slot.round}-${point.name}-${client.name}`);
  let sim: SimProcess | null = null;
  try {
    await mkdir(scratch, { recursive: true });
    sim = await SimProcess.start(simScript, { latencyMs: point.latencyMs });
    if (!options.cold && point.warmUpRequests > 0) {
      m.simWarmUpRequests = await warmUpSimulator(sim.url, {
        requests: point.warmUpRequests,
        concurrency: point.concurrency,
        timeoutMs: 5_000 + point.latencyMs,
      });
    }
    await sim.reset();
    const { run, ok, failed } = await client.run(point, input, sim.url, scratch, options.killAfterMs);
    let stats: SimStats | null = null;
    try {
      stats = await sim.stats();
    } catch (error) {
      m.notes.push(`no figures from the simulator: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (run.timedOut) throw new Error(`killed after ${Math.round(options.killAfterMs / 1000)} s; stderr: ${run.stderrTail.slice(-2000)}`);
    if (run.exitCode !== 0 && run.exitCode !== 1)
      throw new Error(`exited with ${run.exitCode ?? `signal ${run.signal}`}; stderr: ${run.stderrTail.slice(-2000)}`);
    const rowsPerSec = point.rows / (run.wallMs / 1000);
    const limit = point.latencyMs > 0 ? point.concurrency / (point.latencyMs / 1000) : null;
    Object.assign(m, {
      wallMs: run.wallMs,
      rowsPerSec,
      pctOfLimit: limit ? (100 * rowsPerSec) / limit : null,
      clientUserMs: run.usage?.userMs ?? null,
      clientSystemMs: run.usage?.systemMs ?? null,
      cpuMsPerRow: run.usage ? (run.usage.userMs + run.usage.systemMs) / point.rows : null,
      peakRssMb: run.usage ? run.usage.maxRssKb / 1024 : null,
      ok,
      failed,
      exitCode: run.exitCode,
      ...(stats ? { serverRequests: stats.requests, serverMaxInFlight: stats.maxInFlight, serverMeanInFlight: stats.meanInFlight } : {}),
    } satisfies Partial<Measurement>);
    if (!run.usage) m.notes.push('no CPU/RSS figures from the client');
    // The simulator injects no fault here: a row that did not succeed makes the figures no comparison.
    if (ok !== point.rows) m.error = `${num(ok)} of ${num(point.rows)} rows succeeded (${num(failed)} failed)`;
  } catch (error) {
    m.error = error instanceof Error ? error.message : String(error);
  } finally {
    await sim?.stop();
    await rm(scratch, { recursive: true, force: true });
  }
  return m;
}

/** Round r runs the clients in the order rotated by r: A B, then B A, and so on. */
export function clientOrder<T>(clients: readonly T[], round: number): T[] {
  const shift = round % clients.length;
  return [...clients.slice(shift), ...clients.slice(0, shift)];
}

export async function runComparison(options: CompareOptions): Promise<Comparison> {
  const clients = [chatbatch, ...BASELINES];
  const measurements: Measurement[] = [];
  const total = options.rounds * options.points.length * clients.length;
  for (let round = 1; round <= options.rounds; round++) {
    for (const point of options.points) {
      const input = await options.inputs.get('jsonl', point.rows);
      for (const [index, client] of clientOrder(clients, round - 1).entries()) {
        options.log(
          `[${measurements.length + 1}/${total}] round ${round}, ${point.name} (${num(point.rows)} rows, C=${point.concurrency}, L=${point.latencyMs} ms): ${client.name}`,
        );
        const m = await measure(client, point, input, options, { round, order: index + 1 });
        measurements.push(m);
        if (m.error) options.log(`  FAILED: ${m.error}`);
        else
          options.log(
            `  ${num((m.wallMs ?? 0) / 1000, 1)} s, ${num(m.rowsPerSec)} rows/s, ${num(m.cpuMsPerRow, 3)} ms CPU/row, peak RSS ${num(m.peakRssMb, 1)} MB`,
          );
        for (const note of m.notes) options.log(`  note: ${note}`);
      }
    }
  }
  return {
    measurements,
    ratios: ratioRows(
      measurements,
      options.rounds,
      BASELINES.map((b) => b.name),
    ).map(summarize),
  };
}

interface Metric {
  label: string;
  point: string;
  value(m: Measurement): number | null | undefined;
  target: Target | null;
}

const rowsPerSec = (m: Measurement): number | undefined => m.rowsPerSec;
const cpuPerRow = (m: Measurement): number | null | undefined => m.cpuMsPerRow;
const peakRss = (m: Measurement): number | null | undefined => m.peakRssMb;

/** The guard's targets first, then the same figures at the other point, for reading them by. */
export const METRICS: Metric[] = [
  { label: 'throughput (rows/s)', point: COMPARE_THROUGHPUT_NAME, value: rowsPerSec, target: { kind: 'atLeast', bound: 0.93 } },
  { label: 'client CPU per row', point: COMPARE_CPU_NAME, value: cpuPerRow, target: { kind: 'atMost', bound: 2 } },
  { label: 'peak RSS', point: COMPARE_THROUGHPUT_NAME, value: peakRss, target: null },
  { label: 'throughput (rows/s)', point: COMPARE_CPU_NAME, value: rowsPerSec, target: null },
  { label: 'client CPU per row', point: COMPARE_THROUGHPUT_NAME, value: cpuPerRow, target: null },
  { label: 'peak RSS', point: COMPARE_CPU_NAME, value: peakRss, target: null },
];

/** Each metric as chatbatch / baseline, one ratio per round in which both ran without error. */
export function ratioRows(measurements: readonly Measurement[], rounds: number, baselines: readonly string[]): RatioRow[] {
  const find = (round: number, point: string, client: string): Measurement | undefined =>
    measurements.find((m) => m.round === round && m.point === point && m.client === client && !m.error);
  const rows: RatioRow[] = [];
  for (const [index, baseline] of baselines.entries()) {
    for (const metric of METRICS) {
      if (!measurements.some((m) => m.point === metric.point)) continue;
      const ratios: number[] = [];
      for (let round = 1; round <= rounds; round++) {
        const ours = find(round, metric.point, 'chatbatch');
        const theirs = find(round, metric.point, baseline);
        const a = ours && metric.value(ours);
        const b = theirs && metric.value(theirs);
        if (typeof a === 'number' && typeof b === 'number' && b > 0) ratios.push(a / b);
      }
      const label = baselines.length > 1 ? `${metric.label} vs ${baseline}` : metric.label;
      rows.push({ metric: label, point: metric.point, ratios, target: index === 0 ? metric.target : null });
    }
  }
  return rows;
}

export const measurementColumns: Column<Measurement>[] = [
  { header: 'round', value: (m) => String(m.round) },
  { header: 'point', value: (m) => m.point, align: 'left' },
  { header: 'client', value: (m) => m.client, align: 'left' },
  { header: 'ran', value: (m) => (m.order === 1 ? '1st' : m.order === 2 ? '2nd' : `${m.order}th`) },
  { header: 'rows', value: (m) => num(m.rows) },
  { header: 'rows/s', value: (m) => num(m.rowsPerSec) },
  { header: '% of C/L', value: (m) => num(m.pctOfLimit, 1) },
  { header: 'CPU ms/row', value: (m) => num(m.cpuMsPerRow, 3) },
  { header: 'peak RSS MB', value: (m) => num(m.peakRssMb, 1) },
  { header: 'ok', value: (m) => num(m.ok) },
  { header: 'failed', value: (m) => num(m.failed) },
  { header: 'srv requests', value: (m) => num(m.serverRequests) },
  { header: 'srv mean in-flight', value: (m) => num(m.serverMeanInFlight, 1) },
  { header: 'error', value: (m) => (m.error ? 'FAILED (see above)' : ''), align: 'left' },
];

export function formatMeasurements(measurements: Measurement[]): string {
  return formatTable(measurementColumns, measurements);
}
