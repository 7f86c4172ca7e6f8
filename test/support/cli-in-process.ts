import { runCli as runCommandLine } from '../../src/cli/run-cli.js';
import { CLI, type CliOptions, type CliResult } from './cli.js';

/**
 * The command line run in this process, from its argv, with its output captured: the same shape
 * as the spawning helper of cli.ts (`code`, `stdout`, `stderr`; `signal` always null), so a test
 * that needs no process of its own changes only its import. The environment is as clean as a
 * spawned one's: PATH, HOME, NO_COLOR and `options.env`.
 *
 * The engine opens files relative to the process's working directory, so a command given a `cwd`
 * runs with the process changed to it (vitest's forks pool allows it), and back after. Commands
 * may run at the same time only in the same folder.
 */
export function startCliInProcess(
  args: readonly string[],
  options: CliOptions = {},
): { done: Promise<CliResult>; stderr: () => string; stdout: () => string; stop: (reason?: string) => void } {
  const stop = new AbortController();
  let stdout = '';
  let stderr = '';
  const done = (async (): Promise<CliResult> => {
    const cwd = enterFolder(options.cwd);
    const timer = setTimeout(() => stop.abort('timeout'), options.timeoutMs ?? 60_000);
    try {
      const code = await runCommandLine(args, {
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: (text: string) => (stderr += text) },
        env: cleanEnv(options.env),
        cwd,
        script: CLI,
        signal: stop.signal,
      });
      return { code, signal: null, stdout, stderr };
    } finally {
      clearTimeout(timer);
      leaveFolder();
    }
  })();
  return { done, stderr: () => stderr, stdout: () => stdout, stop: (reason = 'SIGINT') => stop.abort(reason) };
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return startCliInProcess(args, options).done;
}

/** Variables read by Node or by test hooks through `process.env`: only a process of its own sees them. */
const PROCESS_ONLY = /^(NODE_.*|CHATBATCH_TEST_.*)$/;

function cleanEnv(extra: CliOptions['env'] = {}): Record<string, string> {
  const needsProcess = Object.keys(extra).find((name) => PROCESS_ONLY.test(name));
  if (needsProcess) throw new Error(`${needsProcess} takes effect only in a process of its own: spawn this command (support/cli.ts)`);
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' };
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) env[name] = value;
  return env;
}

/** The folder the commands running now share, how many they are, and where the process was before the first. */
let shared: { cwd: string; users: number; before: string } | null = null;

function enterFolder(cwd: string | undefined): string {
  const wanted = cwd ?? shared?.cwd ?? process.cwd();
  if (shared && shared.cwd !== wanted) {
    throw new Error(`in-process commands at the same time in two folders (${shared.cwd}, ${wanted}): spawn one (support/cli.ts)`);
  }
  if (!shared) {
    shared = { cwd: wanted, users: 0, before: process.cwd() };
    process.chdir(wanted);
  }
  shared.users++;
  return wanted;
}

function leaveFolder(): void {
  if (!shared) return;
  shared.users--;
  if (shared.users > 0) return;
  process.chdir(shared.before);
  shared = null;
}
