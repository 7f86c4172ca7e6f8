/**
 * `npm run bench -- --light`: what chatbatch costs at rest and at the start (issue 44): a one-row
 * run's CPU and peak RSS beside a bare undici one-request script, and `chatbatch --help`'s CPU.
 * Every process is measured by /usr/bin/time (or process.resourceUsage()), the clients taking
 * turns round by round, so the shared machine's drift hits each alike; medians over the rounds.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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

const figureColumns: Column<LightFigure>[] = [
  { header: 'figure', value: (f) => f.name, align: 'left' },
  { header: 'median', value: (f) => `${num(f.median, f.unit === 's' ? 3 : 1)} ${f.unit}` },
  { header: 'min–max', value: (f) => `${num(f.min, f.unit === 's' ? 3 : 1)}–${num(f.max, f.unit === 's' ? 3 : 1)}` },
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
