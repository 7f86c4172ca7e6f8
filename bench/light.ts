/**
 * `npm run bench -- --light`: what chatbatch costs at rest and at the start (issue 44): a one-row
 * run's CPU and peak RSS beside a bare undici one-request script, and `chatbatch --help`'s CPU;
 * peak RSS as the input grows (20,000, 200,000 and 1,000,000 JSONL rows at C=64, L=0); the
 * output directory's size against its record files, finished and while the run goes on; and a
 * resume of the finished million-row run. Every process is measured by /usr/bin/time (or
 * process.resourceUsage()); start-up clients take turns round by round, so the shared machine's
 * drift hits each alike; medians over the rounds.
 */
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cpuPerRow } from './cpu-per-row.js';
import type { InputCache } from './generate-inputs.js';
import { BENCH_API_KEY, type ClientRun, runClient, runMeasured } from './measure.js';
import { bareUndiciScript, cliScript, simScript, usageHook } from './paths.js';
import { spread } from './ratios.js';
import { SimProcess } from './sim-control.js';
import { type Column, formatTable, num } from './table.js';

/** One figure: its median (and spread) over the rounds, and the issue's bound for it. */
export interface LightFigure {
  name: string;
  unit: string;
  min: number | null;
  median: number | null;
  max: number | null;
  /** At most this (the issue's target); null: reported only. */
  atMost: number | null;
  /** What it is measured against, in words. */
  note: string;
}

/** Decimals shown for a figure in `unit`. */
const digits = (unit: string): number => (unit === 's' || unit === 'ms' ? 3 : unit === '×' ? 2 : 1);

const figureColumns: Column<LightFigure>[] = [
  { header: 'figure', value: (f) => f.name, align: 'left' },
  { header: 'median', value: (f) => `${num(f.median, digits(f.unit))} ${f.unit}` },
  { header: 'min–max', value: (f) => `${num(f.min, digits(f.unit))}–${num(f.max, digits(f.unit))}` },
  { header: 'target', value: (f) => (f.atMost === null ? '-' : `≤ ${f.atMost} ${f.unit}`) },
  { header: 'met', value: (f) => (f.atMost === null || f.median === null ? '' : f.median <= f.atMost ? 'met' : 'NOT met') },
  { header: 'note', value: (f) => f.note, align: 'left' },
];

export function formatLight(figures: LightFigure[]): string {
  return formatTable(figureColumns, figures);
}

function figure(name: string, unit: string, values: number[], atMost: number | null, note: string): LightFigure {
  const s = spread(values);
  return { name, unit, min: s?.min ?? null, median: s?.median ?? null, max: s?.max ?? null, atMost, note };
}

const cpuSeconds = (run: ClientRun): number => (run.usage ? (run.usage.userMs + run.usage.systemMs) / 1000 : Number.NaN);
const peakMb = (run: ClientRun): number => (run.usage ? run.usage.maxRssKb / 1024 : Number.NaN);

/** A run that did not end as asked is no figure: it is named instead. */
function checked(run: ClientRun, what: string, codes: readonly number[] = [0]): ClientRun {
  if (run.timedOut || run.exitCode === null || !codes.includes(run.exitCode)) {
    throw new Error(`${what} exited with ${run.exitCode ?? `signal ${run.signal}`}: ${run.stderrTail.slice(-1000)}`);
  }
  return run;
}

/**
 * Start-up: `rounds` rounds of a one-row chatbatch run, the bare undici loop on the same row (the
 * floor: Node, undici and one request), and `chatbatch --help`, against one simulator.
 */
export async function startUpFigures(workDir: string, rounds: number, log: (line: string) => void): Promise<LightFigure[]> {
  const input = join(workDir, 'one-row.jsonl');
  await writeFile(input, `${JSON.stringify({ id: 'r1', prompt: 'name one colour, briefly' })}\n`);
  const sim = await SimProcess.start(simScript, { latencyMs: 0 });
  const runs = { cli: [] as ClientRun[], bare: [] as ClientRun[], help: [] as ClientRun[] };
  try {
    for (let round = 0; round < rounds; round++) {
      log(`start-up round ${round + 1}/${rounds}`);
      const outDir = join(workDir, `start-up-${round}`);
      const common = { usageHook, usageFile: join(workDir, `start-up-${round}.usage`), killAfterMs: 60_000 };
      runs.cli.push(
        checked(
          await runClient({
            cli: cliScript,
            usageHook,
            input,
            baseUrl: sim.url,
            outDir,
            concurrency: 1,
            timeoutMs: 30_000,
            maxAttempts: 1,
            killAfterMs: 60_000,
          }),
          'a one-row run',
        ),
      );
      const bareArgs = [input, '--base-url', sim.url, '--model', 'bench', '--concurrency', '1', '--timeout-ms', '30000'];
      runs.bare.push(
        checked(await runMeasured({ script: bareUndiciScript, args: bareArgs, env: { BENCH_API_KEY }, ...common }), 'the bare loop'),
      );
      runs.help.push(checked(await runMeasured({ script: cliScript, args: ['--help'], env: {}, ...common }), 'chatbatch --help'));
    }
  } finally {
    await sim.stop();
  }
  return [
    figure('start-up: one-row run, CPU', 's', runs.cli.map(cpuSeconds), 0.5, 'chatbatch run, 1 JSONL row, user + system'),
    figure('start-up: one-row run, peak RSS', 'MB', runs.cli.map(peakMb), 90, ''),
    figure('start-up: bare undici, one row, CPU', 's', runs.bare.map(cpuSeconds), null, 'the floor: Node, undici, one request'),
    figure('start-up: bare undici, one row, peak RSS', 'MB', runs.bare.map(peakMb), null, ''),
    figure('start-up: chatbatch --help, CPU', 's', runs.help.map(cpuSeconds), 0.3, ''),
  ];
}

/** Bytes of every file under `dir` (0 for what vanished meanwhile: a temporary file renamed). */
async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  for (const entry of entries) {
    const info = await stat(join(dir, entry)).catch(() => null);
    if (info?.isFile()) total += info.size;
  }
  return total;
}

/** The record files' bytes: what the directory holds for its user. */
async function recordBytes(dir: string): Promise<number> {
  const sizes = await Promise.all(
    ['output.jsonl', 'errors.jsonl'].map((name) =>
      stat(join(dir, name)).then(
        (i) => i.size,
        () => 0,
      ),
    ),
  );
  return sizes[0]! + sizes[1]!;
}

/** The largest size `dir` reaches while `work` runs, sampled every 200 ms. */
async function largestWhile<T>(dir: string, work: Promise<T>): Promise<{ result: T; largest: number }> {
  let largest = 0;
  let done = false;
  const sampling = (async () => {
    while (!done) {
      largest = Math.max(largest, await directoryBytes(dir));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  const result = await work.finally(() => {
    done = true;
  });
  await sampling;
  return { result, largest: Math.max(largest, await directoryBytes(dir)) };
}

export interface RowsFigures {
  rows: number;
  peakRssMb: number | null;
  cpuMsPerRow: number | null;
  /** The finished directory's bytes against output.jsonl + errors.jsonl. */
  finishedRatio: number | null;
  /** The most the directory held while the run went on, against the finished record files. */
  runningRatio: number | null;
}

/**
 * One run of `rows` JSONL rows at C=64, L=0 into `outDir`: peak RSS, CPU a row, and the
 * directory's size against its record files (finished, and the most it held while running).
 */
export async function rowsFigures(inputs: InputCache, simUrl: string, rows: number, outDir: string): Promise<RowsFigures> {
  const input = await inputs.get('jsonl', rows);
  const run = runClient({
    cli: cliScript,
    usageHook,
    input,
    baseUrl: simUrl,
    outDir,
    concurrency: 64,
    timeoutMs: 30_000,
    maxAttempts: 6,
    killAfterMs: 30 * 60_000,
  });
  const { result, largest } = await largestWhile(outDir, run);
  checked(result, `a run of ${rows} rows`);
  const records = await recordBytes(outDir);
  return {
    rows,
    peakRssMb: result.usage ? peakMb(result) : null,
    cpuMsPerRow: result.usage ? (cpuSeconds(result) * 1000) / rows : null,
    finishedRatio: records > 0 ? (await directoryBytes(outDir)) / records : null,
    runningRatio: records > 0 ? largest / records : null,
  };
}

/** A `--resume` of the finished run in `outDir`: sends nothing; its wall time, peak RSS and the directory's largest size. */
export async function resumeFigures(inputs: InputCache, simUrl: string, rows: number, outDir: string) {
  const input = await inputs.get('jsonl', rows);
  const args = ['run', input, '--base-url', simUrl, '--model', 'bench', '--out', outDir, '--concurrency', '64', '--quiet', '--resume'];
  const run = runMeasured({
    script: cliScript,
    args,
    env: { CHATBATCH_API_KEY: BENCH_API_KEY },
    usageHook,
    usageFile: `${outDir}.resume.usage`,
    killAfterMs: 30 * 60_000,
  });
  const { result, largest } = await largestWhile(outDir, run);
  checked(result, 'the resume');
  const records = await recordBytes(outDir);
  return {
    wallS: result.wallMs / 1000,
    peakRssMb: result.usage ? peakMb(result) : null,
    runningRatio: records > 0 ? largest / records : null,
  };
}

/**
 * Memory as the input grows, the disk at rest and while running, and a resume of the largest
 * run: 20,000, 200,000 and 1,000,000 rows (`quick`: 2,000, 20,000 and 100,000), one run each.
 */
export async function restFigures(
  workDir: string,
  inputs: InputCache,
  quick: boolean,
  log: (line: string) => void,
): Promise<LightFigure[]> {
  const sizes = quick ? [2_000, 20_000, 100_000] : [20_000, 200_000, 1_000_000];
  const sim = await SimProcess.start(simScript, { latencyMs: 0 });
  const runs: RowsFigures[] = [];
  let resume: Awaited<ReturnType<typeof resumeFigures>>;
  try {
    for (const rows of sizes) {
      log(`${rows} JSONL rows, C=64, L=0`);
      runs.push(await rowsFigures(inputs, sim.url, rows, join(workDir, `rest-${rows}`)));
    }
    log(`a resume of the finished ${sizes.at(-1)}-row run`);
    resume = await resumeFigures(inputs, sim.url, sizes.at(-1)!, join(workDir, `rest-${sizes.at(-1)}`));
  } finally {
    await sim.stop();
  }
  const [small, middle, large] = runs as [RowsFigures, RowsFigures, RowsFigures];
  const one = (value: number | null): number[] => (value === null ? [] : [value]);
  const growth = small.peakRssMb !== null && middle.peakRssMb !== null ? middle.peakRssMb - small.peakRssMb : null;
  return [
    ...runs.map((run) =>
      figure(`peak RSS, ${num(run.rows)} rows`, 'MB', one(run.peakRssMb), run === large && !quick ? 150 : null, 'C=64, L=0'),
    ),
    figure(`peak RSS growth, ${num(small.rows)} → ${num(middle.rows)} rows`, 'MB', one(growth), quick ? null : 15, ''),
    figure(`disk at rest, ${num(large.rows)} rows`, '×', one(large.finishedRatio), 1.2, 'the directory / (output.jsonl + errors.jsonl)'),
    figure(`disk while running, ${num(large.rows)} rows`, '×', one(large.runningRatio), 2.2, 'its largest, sampled every 200 ms'),
    figure(`resume of the finished ${num(large.rows)}-row run, wall`, 's', one(resume.wallS), quick ? null : 20, 'sends nothing'),
    figure(`resume of the finished ${num(large.rows)}-row run, peak RSS`, 'MB', one(resume.peakRssMb), quick ? null : 200, ''),
    figure(`disk during that resume, ${num(large.rows)} rows`, '×', one(resume.runningRatio), 2.2, ''),
    figure(
      `client CPU a row, ${num(large.rows)} rows`,
      'ms',
      one(large.cpuMsPerRow),
      null,
      'start-up included; against the bare loop: see above',
    ),
  ];
}

/** CPU a row at C=64, L=0 against the bare undici loop: 50,000 rows (`quick`: 5,000), `rounds` rounds. */
export async function cpuFigures(
  workDir: string,
  inputs: InputCache,
  quick: boolean,
  rounds: number,
  log: (line: string) => void,
): Promise<LightFigure[]> {
  const rows = quick ? 5_000 : 50_000;
  const cpu = await cpuPerRow(workDir, inputs, rows, rounds, log);
  const note = `${num(rows)} rows, C=64, L=0, start-up included`;
  return [
    figure('CPU a row, chatbatch', 'ms', cpu.chatbatchMs, null, note),
    figure('CPU a row, bare undici loop', 'ms', cpu.bareMs, null, note),
    figure('CPU a row, chatbatch / bare loop', '×', cpu.ratios, 1.8, 'ratio within each round'),
  ];
}
