import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { hasGnuTime } from './measure.js';
import { repoRoot } from './paths.js';

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}

/** What a results file says about where it was measured. */
export function runInfo(): Record<string, unknown> {
  return {
    commit: gitCommit(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: cpus().length,
    cpu_model: cpus()[0]?.model ?? null,
    total_memory_mb: Math.round(totalmem() / 2 ** 20),
    client_usage_source: hasGnuTime() ? '/usr/bin/time' : 'process.resourceUsage()',
  };
}

/** The 1-minute load average, a hint of how busy a shared machine was. */
export function loadAverage(): number {
  return Math.round((loadavg()[0] ?? 0) * 100) / 100;
}
