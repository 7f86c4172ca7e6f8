/**
 * `npm run bench`: first goodput, what users feel: time to finish against an endpoint that
 * limits you, and requests wasted (see goodput.ts); then the guard: chatbatch against a bare
 * undici client loop, side by side (see compare.ts). With `--points`, chatbatch alone at its
 * throughput, fault-mix and memory points. Every client and simulator runs in its own process.
 * Prints figures; asserts nothing.
 *
 *   npm run bench -- [--quick] [--cold] [--rounds N]                   goodput, then the guard
 *   npm run bench -- --goodput [--quick] [--chatbatch-only] [--only TEXT[,TEXT...]]  goodput only (situations whose names contain a TEXT)
 *   npm run bench -- --guard [--quick] [--cold] [--rounds N]           the guard only
 *   npm run bench -- --points [--quick] [--cold] [--only NAME[,NAME...]]   the points
 *   npm run bench -- --light [--quick] [--rounds N]                    at rest and at the start (light.ts)
 *
 * Each simulator is warmed up before the client starts (see warm-up.ts); `--cold` skips that,
 * for figures comparable with results from before it.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { formatMeasurements, runComparison } from './compare.js';
import { InputCache } from './generate-inputs.js';
import { formatGoodput, goodputSituations, runGoodput } from './goodput.js';
import { cpuFigures, formatLight, type LightFigure, restFigures, startUpFigures } from './light.js';
import { countLines, hasGnuTime, killAllClients, runClient } from './measure.js';
import { formatPaced, runPaced } from './paced.js';
import { bareUndiciScript, cliScript as cli, repoRoot, simScript, usageHook } from './paths.js';
import { type BenchPoint, benchPoints, comparePoints, FAULT_FREE_NAME, FAULT_MIX_NAME } from './points.js';
import { formatRatioTable } from './ratios.js';
import { recordIdFigures, recordIdNotes } from './record-ids.js';
import { loadAverage, runInfo } from './run-info.js';
import { killAllSimulators, SimProcess, type SimStats } from './sim-control.js';
import { type Column, formatTable, num } from './table.js';
import { warmUpSimulator } from './warm-up.js';

interface PointResult {
  name: string;
  rows: number;
  format: string;
  concurrency: number;
  latencyMs: number;
  timeoutMs: number;
  faults: BenchPoint['faults'] | null;
  /** Requests the simulator answered before the client started (0: measured against a cold one). */
  simWarmUpRequests: number;
  error: string | null;
  wallMs?: number;
  rowsPerSec?: number;
  /** C / L: the most rows per second C requests in flight can finish when each takes L. */
  limitRowsPerSec?: number | null;
  pctOfLimit?: number | null;
  clientUserMs?: number | null;
  clientSystemMs?: number | null;
  clientCpuMsPerRow?: number | null;
  peakRssMb?: number | null;
  usageSource?: string | null;
  serverRequests?: number;
  serverMaxInFlight?: number;
  /** Time-weighted mean of the requests the server held, first request to last answer. */
  serverMeanInFlight?: number;
  serverByStatus?: Record<string, number>;
  serverCpuMsPerRow?: number;
  succeeded?: number;
  failed?: number;
  succeededPct?: number;
  exitCode?: number | null;
  /** Each row's record once, output.jsonl in input order (record-ids.ts): all 0 when kept. */
  rowsWithoutRecord?: number;
  rowsRecordedTwice?: number;
  outputOutOfOrder?: number;
  notes?: string[];
}

const USAGE = `usage: npm run bench -- [--quick] [--cold] [--rounds N]     goodput against limiting endpoints, then the guard
       npm run bench -- --goodput [--quick] [--chatbatch-only] [--only TEXT[,TEXT...]]   goodput only: chatbatch, the openai SDK, the cookbook
       npm run bench -- --guard [--quick] [--cold] [--rounds N]  the guard only: chatbatch against a bare undici loop
       npm run bench -- --points [--quick] [--cold] [--only NAME[,NAME...]]   chatbatch alone at each point
       npm run bench -- --paced [--quick] [--rounds N]              the paced path: CPU paced vs by concurrency, three models' limits
       npm run bench -- --light [--quick] [--rounds N]              at rest and at the start: a one-row run, --help, memory by rows, disk, a resume
`;

interface Args {
  mode: 'all' | 'goodput' | 'compare' | 'points' | 'paced' | 'light';
  quick: boolean;
  cold: boolean;
  only: string[] | null;
  rounds: number;
  /** Goodput: chatbatch alone, not the SDK and the cookbook beside it. */
  chatbatchOnly: boolean;
}

function usageError(problem: string): never {
  process.stderr.write(`bench: ${problem}\n${USAGE}`);
  process.exit(2);
}

function parseArgs(argv: string[]): Args {
  let quick = false;
  let cold = false;
  let points = false;
  let compare = false;
  let goodput = false;
  let paced = false;
  let chatbatchOnly = false;
  let light = false;
  let only: string[] | null = null;
  let rounds: number | null = null;
  const names = (text: string): string[] =>
    text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const count = (text: string | undefined): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) usageError(`--rounds needs a positive integer, got ${JSON.stringify(text ?? '')}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--quick') quick = true;
    else if (arg === '--cold') cold = true;
    else if (arg === '--points') points = true;
    else if (arg === '--compare' || arg === '--guard') compare = true;
    else if (arg === '--goodput') goodput = true;
    else if (arg === '--paced') paced = true;
    else if (arg === '--chatbatch-only') chatbatchOnly = true;
    else if (arg === '--light') light = true;
    else if (arg === '--only') only = names(argv[++i] ?? '');
    else if (arg.startsWith('--only=')) only = names(arg.slice(7));
    else if (arg === '--rounds') rounds = count(argv[++i]);
    else if (arg.startsWith('--rounds=')) rounds = count(arg.slice(9));
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else usageError(`unknown argument ${arg}`);
  }
  // --only names points, so it asks for them (with --goodput, it names situations instead).
  if (only && !goodput) points = true;
  if (points && compare) usageError('--compare and --points (or --only) are two different runs: choose one');
  if (points && rounds !== null) usageError('--rounds is for the comparison; the points run once each');
  if (goodput && (points || compare)) usageError('--goodput runs alone; without a mode flag the bench runs the goodput and then the guard');
  if (paced && (points || compare || goodput)) usageError('--paced runs alone');
  if (light && (points || compare || goodput || paced)) usageError('--light runs alone');
  const mode = light ? 'light' : paced ? 'paced' : points ? 'points' : compare ? 'compare' : goodput ? 'goodput' : 'all';
  return { mode, quick, cold, only, rounds: rounds ?? 3, chatbatchOnly };
}

const log = (line: string): void => void process.stderr.write(`bench: ${line}\n`);

/** A point's result before it is measured: what it was asked to do, and `error` if it could not. */
function pointResult(point: BenchPoint, error: string | null): PointResult {
  return {
    name: point.name,
    rows: point.rows,
    format: point.format,
    concurrency: point.concurrency,
    latencyMs: point.latencyMs,
    timeoutMs: point.timeoutMs,
    faults: point.faults ?? null,
    simWarmUpRequests: 0,
    error,
  };
}

async function runPoint(point: BenchPoint, inputs: InputCache, workDir: string, killAfterMs: number, cold: boolean): Promise<PointResult> {
  const result = pointResult(point, null);
  const input = await inputs.get(point.format, point.rows);
  const outDir = join(workDir, `out-${point.name.replace(/[^\w-]+/g, '_')}`);
  const sim = await SimProcess.start(simScript, {
    latencyMs: point.latencyMs,
    ...(point.faults ? { faults: point.faults } : {}),
    ...(point.retryAfterMs !== undefined ? { retryAfterMs: point.retryAfterMs } : {}),
    ...(point.provider ? { provider: point.provider } : {}),
  });
  try {
    if (!cold && point.warmUpRequests > 0) {
      const timeoutMs = 5_000 + point.latencyMs;
      result.simWarmUpRequests = await warmUpSimulator(sim.url, {
        requests: point.warmUpRequests,
        concurrency: point.concurrency,
        timeoutMs,
      });
    }
    await sim.reset();
    const run = await runClient({
      cli,
      usageHook,
      input,
      baseUrl: sim.url,
      outDir,
      concurrency: point.concurrency,
      timeoutMs: point.timeoutMs,
      maxAttempts: 6,
      killAfterMs,
    });
    const problems: string[] = [];
    let stats: SimStats | null = null;
    try {
      stats = await sim.stats();
    } catch (error) {
      problems.push(`no figures from the simulator: ${error instanceof Error ? error.message : String(error)}`);
    }
    const succeeded = await countLines(join(outDir, 'output.jsonl'));
    const failed = await countLines(join(outDir, 'errors.jsonl'));
    const notes: string[] = [];
    if (succeeded + failed !== point.rows) notes.push(`records: ${succeeded} + ${failed} = ${succeeded + failed}, rows: ${point.rows}`);
    const ids = await recordIdFigures(outDir, point.rows);
    notes.push(...recordIdNotes(ids));
    if (!run.usage) notes.push('no CPU/RSS figures from the client');

    const limit = point.latencyMs > 0 ? point.concurrency / (point.latencyMs / 1000) : null;
    const rowsPerSec = point.rows / (run.wallMs / 1000);
    Object.assign(result, {
      wallMs: run.wallMs,
      rowsPerSec,
      limitRowsPerSec: limit,
      pctOfLimit: limit ? (100 * rowsPerSec) / limit : null,
      clientUserMs: run.usage?.userMs ?? null,
      clientSystemMs: run.usage?.systemMs ?? null,
      clientCpuMsPerRow: run.usage ? (run.usage.userMs + run.usage.systemMs) / point.rows : null,
      peakRssMb: run.usage ? run.usage.maxRssKb / 1024 : null,
      usageSource: run.usage?.source ?? null,
      succeeded,
      failed,
      succeededPct: (100 * succeeded) / point.rows,
      exitCode: run.exitCode,
      ...ids,
      notes,
    } satisfies Partial<PointResult>);
    if (stats) {
      Object.assign(result, {
        serverRequests: stats.requests,
        serverMaxInFlight: stats.maxInFlight,
        serverMeanInFlight: stats.meanInFlight,
        serverByStatus: stats.byStatus,
        serverCpuMsPerRow: (stats.cpuUserMs + stats.cpuSystemMs) / point.rows,
      } satisfies Partial<PointResult>);
    }
    if (run.timedOut)
      problems.push(`the client was killed after ${Math.round(killAfterMs / 1000)} s; stderr: ${run.stderrTail.slice(-2000)}`);
    else if (run.exitCode !== 0 && run.exitCode !== 1) {
      problems.push(`the client exited with ${run.exitCode ?? `signal ${run.signal}`}; stderr: ${run.stderrTail.slice(-2000)}`);
    }
    if (problems.length > 0) throw new Error(problems.join('; '));
    return result;
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
    return result;
  } finally {
    await sim.stop();
    await rm(outDir, { recursive: true, force: true });
  }
}

const columns: Column<PointResult>[] = [
  { header: 'name', value: (r) => r.name, align: 'left' },
  { header: 'rows', value: (r) => num(r.rows) },
  { header: 'C', value: (r) => num(r.concurrency) },
  { header: 'L ms', value: (r) => num(r.latencyMs) },
  { header: 'rows/s', value: (r) => num(r.rowsPerSec) },
  { header: '% of C/L', value: (r) => num(r.pctOfLimit, 1) },
  { header: 'cli CPU ms/row', value: (r) => num(r.clientCpuMsPerRow, 3) },
  { header: 'peak RSS MB', value: (r) => num(r.peakRssMb, 1) },
  { header: 'srv requests', value: (r) => num(r.serverRequests) },
  { header: 'srv max in-flight', value: (r) => num(r.serverMaxInFlight) },
  { header: 'srv mean in-flight', value: (r) => num(r.serverMeanInFlight, 1) },
  { header: 'succeeded %', value: (r) => num(r.succeededPct, 2) },
  { header: 'srv CPU ms/row', value: (r) => num(r.serverCpuMsPerRow, 3) },
  { header: 'error', value: (r) => (r.error ? 'FAILED (see above)' : ''), align: 'left' },
];

/** A scratch folder for inputs and outputs, and every child process killed on the way out. */
async function withWorkDir<T>(body: (workDir: string) => Promise<T>): Promise<T> {
  const workDir = await mkdtemp(join(tmpdir(), 'chatbatch-bench-'));
  const cleanup = (): void => {
    killAllClients();
    killAllSimulators();
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    log(`${signal}: stopping the client and simulator processes`);
    cleanup();
    void rm(workDir, { recursive: true, force: true }).finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', cleanup);
  try {
    return await body(workDir);
  } finally {
    cleanup();
    await rm(workDir, { recursive: true, force: true });
  }
}

async function writeReport(prefix: string, startedAt: Date, report: Record<string, unknown>): Promise<void> {
  const benchDir = join(repoRoot, '.bench');
  await mkdir(benchDir, { recursive: true });
  const file = join(benchDir, `${prefix}-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  const full = { started_at: startedAt.toISOString(), finished_at: new Date().toISOString(), ...runInfo(), ...report };
  await writeFile(file, `${JSON.stringify(full, null, 2)}\n`);
  process.stdout.write(`results written to ${relative(process.cwd(), file) || file}\n`);
}

async function goodputRun({ quick, chatbatchOnly, only }: Args): Promise<void> {
  const names = goodputSituations(quick).map((situation) => situation.name);
  if (only && !names.some((name) => only.some((text) => name.includes(text)))) {
    usageError(`no goodput situation matches --only ${only.join(',')}; the situations: ${names.join(', ')}`);
  }
  const startedAt = new Date();
  log(
    `${quick ? 'quick' : 'full'} goodput: chatbatch, the openai SDK with p-limit and the cookbook's approach against a simulator playing a provider`,
  );
  const results = await runGoodput(quick, only, chatbatchOnly);
  process.stdout.write(`\ngoodput against a limiting endpoint, ${startedAt.toISOString().slice(0, 10)}:\n${formatGoodput(results)}\n\n`);
  await writeReport('goodput', startedAt, {
    mode: 'goodput',
    quick,
    situations: goodputSituations(quick).map(({ idealMs: _, ...rest }) => rest),
    results,
  });
}

async function pacedRun({ quick, rounds }: Args): Promise<void> {
  const startedAt = new Date();
  const loadBefore = loadAverage();
  log(
    `${quick ? 'quick' : 'full'} paced path: CPU paced against paced by concurrency (${rounds} rounds), then three models with limits of their own`,
  );
  const results = await runPaced(quick, rounds, log);
  process.stdout.write(
    `\npaced path, ${startedAt.toISOString().slice(0, 10)}, load ${loadBefore} → ${loadAverage()}:\n${formatPaced(results)}\n\n`,
  );
  await writeReport('paced', startedAt, { mode: 'paced', quick, rounds, results });
}

async function comparison({ quick, cold, rounds }: Args): Promise<void> {
  if (!existsSync(bareUndiciScript)) throw new Error(`${bareUndiciScript} is missing: run npm run build first`);
  const points = comparePoints(quick);
  const startedAt = new Date();
  const loadBefore = loadAverage();
  log(
    `${quick ? 'quick' : 'full'} comparison, ${rounds} rounds of ${points.length} points, chatbatch against bare-undici, simulator ${cold ? 'cold' : 'warmed up'}; ${cpus().length} CPUs, load ${loadBefore}; client CPU/RSS from ${hasGnuTime() ? '/usr/bin/time' : 'process.resourceUsage()'}`,
  );
  const { measurements, ratios } = await withWorkDir((workDir) =>
    runComparison({ points, rounds, cold, inputs: new InputCache(workDir), workDir, killAfterMs: quick ? 5 * 60_000 : 30 * 60_000, log }),
  );
  const loadAfter = loadAverage();
  process.stdout.write(`\n${formatMeasurements(measurements)}\n\n`);
  process.stdout.write(
    `chatbatch / bare-undici, ${rounds} rounds, ${startedAt.toISOString().slice(0, 10)}, ${cpus().length}× ${cpus()[0]?.model ?? 'CPU'}, load ${loadBefore} → ${loadAfter}:\n`,
  );
  process.stdout.write(`${formatRatioTable(ratios)}\n\n`);
  await writeReport('compare', startedAt, {
    mode: 'compare',
    quick,
    rounds,
    simulator_warmed_up: !cold,
    load_average_1m: { before: loadBefore, after: loadAfter },
    points,
    ratios,
    measurements,
  });
}

async function pointsRun({ quick, cold, only }: Args): Promise<void> {
  let points = benchPoints(quick);
  if (only) points = points.filter((p) => only.some((name) => p.name.includes(name)));
  if (points.length === 0) {
    const names = benchPoints(quick).map((p) => p.name);
    usageError(`no benchmark point matches --only ${only!.join(',')}; the points: ${names.join(', ')}`);
  }

  const startedAt = new Date();
  const results: PointResult[] = [];
  await withWorkDir(async (workDir) => {
    log(
      `${quick ? 'quick' : 'full'} run, ${points.length} points, simulator ${cold ? 'cold' : 'warmed up'}; ${cpus().length} CPUs; client CPU/RSS from ${hasGnuTime() ? '/usr/bin/time' : 'process.resourceUsage()'}; work dir ${workDir}`,
    );
    const inputs = new InputCache(workDir);
    const killAfterMs = quick ? 5 * 60_000 : 30 * 60_000;
    for (const [index, point] of points.entries()) {
      log(
        `[${index + 1}/${points.length}] ${point.name}: ${num(point.rows)} ${point.format} rows, C=${point.concurrency}, L=${point.latencyMs} ms${point.faults ? ', fault mix' : ''}`,
      );
      let result: PointResult;
      try {
        result = await runPoint(point, inputs, workDir, killAfterMs, cold);
      } catch (error) {
        result = pointResult(point, error instanceof Error ? error.message : String(error));
      }
      results.push(result);
      if (result.error) log(`  ${point.name} FAILED: ${result.error}`);
      else {
        log(
          `  ${num((result.wallMs ?? 0) / 1000, 1)} s, ${num(result.rowsPerSec)} rows/s, peak RSS ${num(result.peakRssMb, 1)} MB, ${num(result.succeededPct, 2)}% succeeded`,
        );
      }
      for (const note of result.notes ?? []) log(`  note: ${note}`);
    }
  });

  process.stdout.write(`\n${formatTable(columns, results)}\n\n`);
  const free = results.find((r) => r.name === FAULT_FREE_NAME && !r.error);
  const faulty = results.find((r) => r.name === FAULT_MIX_NAME && !r.error);
  let faultRatio: number | null = null;
  if (free?.rowsPerSec && faulty?.rowsPerSec) {
    faultRatio = faulty.rowsPerSec / free.rowsPerSec;
    process.stdout.write(
      `fault mix vs fault-free (C=64, L=50 ms): ${num(faulty.rowsPerSec)} / ${num(free.rowsPerSec)} rows/s = ${num(faultRatio, 2)}` +
        ` (${num(faulty.succeededPct, 2)}% succeeded, ${num(faulty.serverRequests)} requests for ${num(faulty.rows)} rows)\n`,
    );
  } else {
    process.stdout.write('fault mix vs fault-free: not available (one of the two points did not run or failed)\n');
  }
  await writeReport('results', startedAt, {
    mode: 'points',
    quick,
    simulator_warmed_up: !cold,
    fault_mix_ratio: faultRatio,
    points: results,
  });
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
  if (args.mode === 'goodput' || args.mode === 'all') await goodputRun(args);
  if (args.mode === 'compare' || args.mode === 'all') await comparison(args);
  if (args.mode === 'points') await pointsRun(args);
  if (args.mode === 'paced') await pacedRun(args);
  if (args.mode === 'light' || args.mode === 'all') await lightRun(args);
}

async function lightRun({ quick, rounds }: Args): Promise<void> {
  const startedAt = new Date();
  const loadBefore = loadAverage();
  // The start-up figures are medians: more rounds than the comparison's three, as each is short.
  const startUpRounds = quick ? 3 : Math.max(rounds, 7);
  log(`at rest and at the start: ${startUpRounds} rounds of a one-row run, the bare loop and --help`);
  const figures: LightFigure[] = await withWorkDir(async (workDir) => {
    const inputs = new InputCache(workDir);
    return [
      ...(await startUpFigures(workDir, startUpRounds, log)),
      ...(await cpuFigures(workDir, inputs, quick, rounds, log)),
      ...(await restFigures(workDir, inputs, quick, log)),
    ];
  });
  process.stdout.write(
    `\nat rest and at the start, ${startedAt.toISOString().slice(0, 10)}, load ${loadBefore} → ${loadAverage()}:\n${formatLight(figures)}\n\n`,
  );
  await writeReport('light', startedAt, { mode: 'light', quick, figures });
}

try {
  await main();
} catch (error) {
  killAllClients();
  killAllSimulators();
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
}
