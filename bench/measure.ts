import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

export interface ClientUsage {
  userMs: number;
  systemMs: number;
  maxRssKb: number;
  source: '/usr/bin/time' | 'resourceUsage';
}

export interface ClientRun {
  exitCode: number | null;
  signal: string | null;
  wallMs: number;
  usage: ClientUsage | null;
  stdoutTail: string;
  stderrTail: string;
  timedOut: boolean;
}

export interface ClientOptions {
  cli: string;
  usageHook: string;
  input: string;
  baseUrl: string;
  outDir: string;
  concurrency: number;
  timeoutMs: number;
  maxAttempts: number;
  /** Kill the client when the run takes longer than this. */
  killAfterMs: number;
}

/**
 * The key both clients send: as long as a real one (58 characters; an OpenAI key has 51 or more),
 * because what chatbatch's redaction costs depends on it: a server string shorter than every
 * secret cannot hold one and is skipped unread, so a short key would make redaction look dearer.
 */
export const BENCH_API_KEY = `sk-bench-${'0123456789abcdef'.repeat(3)}k`;

/** Process groups of running clients, so the benchmark can kill them on the way out. */
const liveClients = new Set<ChildProcess>();

export function killAllClients(): void {
  for (const child of liveClients) {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
  liveClients.clear();
}

let gnuTime: boolean | null = null;

/** Whether /usr/bin/time takes -f and -o (GNU time). */
export function hasGnuTime(): boolean {
  if (gnuTime === null && process.env.BENCH_NO_TIME) gnuTime = false;
  if (gnuTime === null) {
    const probe = spawnSync('/usr/bin/time', ['-f', '%U %S %M', '-o', '/dev/null', 'true'], { stdio: 'ignore' });
    gnuTime = probe.status === 0;
  }
  return gnuTime;
}

/**
 * Runs `chatbatch run` as a child process; wall time is from spawn to exit. CPU and peak RSS come
 * from /usr/bin/time when it is GNU time, else from process.resourceUsage() via a --import hook.
 */
export function runClient(options: ClientOptions): Promise<ClientRun> {
  return runMeasured({
    script: options.cli,
    args: [
      'run',
      options.input,
      '--base-url',
      options.baseUrl,
      '--model',
      'bench',
      '--out',
      options.outDir,
      '--concurrency',
      String(options.concurrency),
      '--quiet',
      '--timeout-ms',
      String(options.timeoutMs),
      '--max-attempts',
      String(options.maxAttempts),
    ],
    env: { CHATBATCH_API_KEY: BENCH_API_KEY },
    usageHook: options.usageHook,
    usageFile: join(options.outDir, '..', `${basenameOf(options.outDir)}.usage`),
    killAfterMs: options.killAfterMs,
  });
}

export interface MeasuredProcess {
  /** A Node script, run with this process's `node`. */
  script: string;
  args: string[];
  /** Added to this process's environment. */
  env: Record<string, string>;
  usageHook: string;
  /** Where the CPU/RSS figures are written (and removed from once read). */
  usageFile: string;
  killAfterMs: number;
}

/** Runs a Node script as a child process and measures it, as runClient says. */
export async function runMeasured(spec: MeasuredProcess): Promise<ClientRun> {
  const usageFile = spec.usageFile;
  const useTime = hasGnuTime();
  const command = useTime ? '/usr/bin/time' : process.execPath;
  const args = useTime
    ? ['-f', '%U %S %M', '-o', usageFile, process.execPath, spec.script, ...spec.args]
    : ['--import', spec.usageHook, spec.script, ...spec.args];
  const env = { ...process.env, ...spec.env, BENCH_USAGE_FILE: usageFile };

  const started = performance.now();
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  liveClients.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout = (stdout + chunk.toString('utf8')).slice(-8000);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-8000);
  });
  let timedOut = false;
  const killer = setTimeout(() => {
    timedOut = true;
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }, spec.killAfterMs);
  const { code, signal } = await new Promise<{ code: number | null; signal: string | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal }));
  }).finally(() => {
    clearTimeout(killer);
    liveClients.delete(child);
  });
  const wallMs = performance.now() - started;

  let usage: ClientUsage | null = null;
  try {
    const text = (await readFile(usageFile, 'utf8')).trim();
    if (useTime) {
      // GNU time prefixes "Command exited with non-zero status N" when the exit code is not 0.
      const last = text.split('\n').pop() ?? '';
      const [user, system, rss] = last.split(/\s+/).map(Number);
      if ([user, system, rss].every((n) => n !== undefined && Number.isFinite(n))) {
        usage = { userMs: user! * 1000, systemMs: system! * 1000, maxRssKb: rss!, source: '/usr/bin/time' };
      }
    } else {
      const parsed = JSON.parse(text) as Omit<ClientUsage, 'source'>;
      usage = { ...parsed, source: 'resourceUsage' };
    }
  } catch {
    usage = null;
  } finally {
    await rm(usageFile, { force: true });
  }
  return { exitCode: code, signal, wallMs, usage, stdoutTail: stdout.trim(), stderrTail: stderr.trim(), timedOut };
}

function basenameOf(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() ?? 'out';
}

/** Number of lines (records) in a file, streamed; 0 when the file does not exist. */
export async function countLines(file: string): Promise<number> {
  let lines = 0;
  let last = 10;
  try {
    for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
      let at = chunk.indexOf(10);
      while (at !== -1) {
        lines++;
        at = chunk.indexOf(10, at + 1);
      }
      if (chunk.length > 0) last = chunk[chunk.length - 1]!;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  return last === 10 ? lines : lines + 1;
}
