/**
 * CPU a row at no latency, chatbatch against the bare undici loop (issue 44, part of `--light`):
 * the same JSONL rows at C=64 against a simulator answering at once, the two clients taking turns
 * round by round (each against a fresh, warmed-up simulator, as `--guard` does), so the shared
 * machine's drift hits both alike. The ratio is taken within a round; start-up is in both.
 */
import { join } from 'node:path';
import type { InputCache } from './generate-inputs.js';
import { BENCH_API_KEY, type ClientRun, runClient, runMeasured } from './measure.js';
import { bareUndiciScript, cliScript, simScript, usageHook } from './paths.js';
import { SimProcess } from './sim-control.js';
import { warmUpSimulator } from './warm-up.js';

const CONCURRENCY = 64;

export interface CpuPerRow {
  /** ms of CPU a row, per round. */
  chatbatchMs: number[];
  bareMs: number[];
  /** chatbatch / bare within each round. */
  ratios: number[];
}

const cpuMs = (run: ClientRun): number => (run.usage ? run.usage.userMs + run.usage.systemMs : Number.NaN);

function mustSucceed(run: ClientRun, what: string): ClientRun {
  if (run.timedOut || run.exitCode !== 0)
    throw new Error(`${what} exited with ${run.exitCode ?? `signal ${run.signal}`}: ${run.stderrTail}`);
  return run;
}

/** One client's run of `input` against a fresh simulator warmed up with 3,000 requests. */
async function measuredRun(client: 'chatbatch' | 'bare', input: string, outDir: string, usageFile: string): Promise<ClientRun> {
  const sim = await SimProcess.start(simScript, { latencyMs: 0 });
  try {
    await warmUpSimulator(sim.url, { requests: 3_000, concurrency: CONCURRENCY, timeoutMs: 5_000 });
    if (client === 'chatbatch') {
      const run = await runClient({
        cli: cliScript,
        usageHook,
        input,
        baseUrl: sim.url,
        outDir,
        concurrency: CONCURRENCY,
        timeoutMs: 30_000,
        maxAttempts: 6,
        killAfterMs: 10 * 60_000,
      });
      return mustSucceed(run, 'chatbatch');
    }
    const args = [input, '--base-url', sim.url, '--model', 'bench', '--concurrency', String(CONCURRENCY), '--timeout-ms', '30000'];
    const run = await runMeasured({
      script: bareUndiciScript,
      args,
      env: { BENCH_API_KEY },
      usageHook,
      usageFile,
      killAfterMs: 10 * 60_000,
    });
    return mustSucceed(run, 'the bare loop');
  } finally {
    await sim.stop();
  }
}

export async function cpuPerRow(
  workDir: string,
  inputs: InputCache,
  rows: number,
  rounds: number,
  log: (line: string) => void,
): Promise<CpuPerRow> {
  const input = await inputs.get('jsonl', rows);
  const result: CpuPerRow = { chatbatchMs: [], bareMs: [], ratios: [] };
  for (let round = 0; round < rounds; round++) {
    log(`CPU a row, round ${round + 1}/${rounds}: ${rows} rows, C=${CONCURRENCY}, L=0`);
    const order = round % 2 === 0 ? (['chatbatch', 'bare'] as const) : (['bare', 'chatbatch'] as const);
    const perRow: Record<string, number> = {};
    for (const client of order) {
      const run = await measuredRun(client, input, join(workDir, `cpu-${round}`), join(workDir, `cpu-${round}-${client}.usage`));
      perRow[client] = cpuMs(run) / rows;
    }
    result.chatbatchMs.push(perRow.chatbatch!);
    result.bareMs.push(perRow.bare!);
    result.ratios.push(perRow.chatbatch! / perRow.bare!);
  }
  return result;
}
