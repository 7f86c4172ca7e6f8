import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { FaultRates, LimitHeaders, SimulatorStats } from '../src/simulator/server.js';

/** The simulator's counters (requests, 429s by cause, in flight...) and its process's CPU and memory. */
export interface SimStats extends SimulatorStats {
  cpuUserMs: number;
  cpuSystemMs: number;
  rssMb: number;
}

/** A provider's limits for the simulator to play (see `chatbatch simulate --rpm ...`). */
export interface ProviderLimits {
  rpm?: number;
  tpm?: number;
  limitHeaders?: LimitHeaders;
  maxInFlight?: number;
  burstMs?: number;
  /** Each model's own limits (the simulator's modelLimits). */
  modelLimits?: Record<string, { rpm?: number; tpm?: number }>;
}

export interface SimSettings {
  latencyMs: number;
  faults?: Partial<FaultRates>;
  retryAfterMs?: number;
  seed?: number;
  provider?: ProviderLimits;
}

const PROVIDER_FLAGS: Record<keyof ProviderLimits, string> = {
  rpm: '--rpm',
  tpm: '--tpm',
  limitHeaders: '--limit-headers',
  maxInFlight: '--max-in-flight',
  burstMs: '--burst-ms',
  modelLimits: '--model-limits',
};

/** Every simulator process started, so the benchmark can kill them whatever happens. */
const live = new Set<ChildProcessWithoutNullStreams>();

export function killAllSimulators(): void {
  for (const child of live) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  live.clear();
}

/** A simulator in its own process (.bench/dist/bench/sim-process.js), driven over stdin/stdout. */
export class SimProcess {
  private readonly replies: Array<{ resolve(line: string): void; reject(error: Error): void }> = [];
  private stderr = '';
  private exited: string | null = null;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    readonly url: string,
    lines: ReturnType<typeof createInterface>,
  ) {
    lines.on('line', (line) => this.replies.shift()?.resolve(line));
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-4000);
    });
    // A dead simulator must not crash the benchmark through an EPIPE on its stdin.
    child.stdin.on('error', () => {});
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      this.exited = `the simulator process exited (code ${code}, signal ${signal})`;
      for (const waiting of this.replies.splice(0)) waiting.reject(new Error(`${this.exited}; stderr: ${this.stderr.slice(-1000)}`));
    };
    if (child.exitCode !== null || child.signalCode !== null) onExit(child.exitCode, child.signalCode);
    else child.once('exit', onExit);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  static async start(script: string, settings: SimSettings, startTimeoutMs = 15_000): Promise<SimProcess> {
    const args = [script, '--latency-ms', String(settings.latencyMs)];
    if (settings.faults) args.push('--faults', JSON.stringify(settings.faults));
    if (settings.retryAfterMs !== undefined) args.push('--retry-after-ms', String(settings.retryAfterMs));
    if (settings.seed !== undefined) args.push('--seed', String(settings.seed));
    for (const [name, value] of Object.entries(settings.provider ?? {})) {
      if (value === undefined) continue;
      args.push(PROVIDER_FLAGS[name as keyof ProviderLimits], typeof value === 'object' ? JSON.stringify(value) : String(value));
    }
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    live.add(child);
    child.once('exit', () => live.delete(child));
    const lines = createInterface({ input: child.stdout });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`simulator did not print its URL within ${startTimeoutMs} ms`)), startTimeoutMs);
      lines.once('line', (line) => {
        clearTimeout(timer);
        resolve(line.trim());
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`simulator exited before printing its URL (code ${code}, signal ${signal}): ${stderr.slice(-2000)}`));
      });
      child.once('error', reject);
    }).catch((error: unknown) => {
      child.kill('SIGKILL');
      throw error;
    });
    if (!/^http:\/\//.test(url)) {
      child.kill('SIGKILL');
      throw new Error(`simulator printed ${JSON.stringify(url)} instead of a URL`);
    }
    return new SimProcess(child, url, lines);
  }

  private command(text: string, timeoutMs = 10_000): Promise<string> {
    if (this.exited) return Promise.reject(new Error(`${this.exited}; stderr: ${this.stderr.slice(-1000)}`));
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`simulator did not answer "${text}" within ${timeoutMs} ms; stderr: ${this.stderr}`)),
        timeoutMs,
      );
      this.replies.push({
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.child.stdin.write(`${text}\n`);
    });
  }

  async stats(): Promise<SimStats> {
    return JSON.parse(await this.command('stats')) as SimStats;
  }

  async reset(): Promise<void> {
    await this.command('reset');
  }

  /** SIGTERM, then SIGKILL if it has not gone within 3 s. */
  async stop(): Promise<void> {
    const child = this.child;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await gone;
    clearTimeout(timer);
    live.delete(child);
  }
}
