import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface ProgramResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The programmatic API as a user's program sees it: runs `script` (an ES module) in a process of
 * its own from the repository root, where `import { run } from 'chatbatch'` resolves through
 * package.json `exports` (Node resolves a package's own name from inside it), so that anything
 * it wrote to stdout or stderr, or a process.exit, shows. Its environment is PATH plus `env`.
 */
export function runApiProgram(script: string, env: Record<string, string>): Promise<ProgramResult> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
