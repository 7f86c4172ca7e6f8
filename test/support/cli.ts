import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  /** Runs `command args` instead of the CLI (which `args` then name), e.g. under `unshare`. */
  command?: string;
}

/**
 * Runs the built command as a user would, with a clean environment plus `env`. `stderr()` is what
 * it has written to stderr so far.
 */
export function startCli(
  args: readonly string[],
  options: CliOptions = {},
): { child: ChildProcess; done: Promise<CliResult>; stderr: () => string } {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' };
  for (const [name, value] of Object.entries(options.env ?? {})) if (value !== undefined) env[name] = value;
  const [command, commandArgs] = options.command ? [options.command, args] : [process.execPath, [CLI, ...args]];
  const child = spawn(command, commandArgs, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  const done = new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, done, stderr: () => stderr };
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).done;
}
