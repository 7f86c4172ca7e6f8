import { readFile } from 'node:fs/promises';

export interface ProcStat {
  /** One letter: R running, S sleeping, Z zombie, ... */
  state: string;
  /** When the process started, in clock ticks since boot (field 22): a reused pid has another. */
  startTicks: string;
}

/**
 * Parses a Linux `/proc/PID/stat` line. Its second field is the command name in parentheses,
 * which may itself hold spaces and parentheses (`(a) (b c)`), so the fields are counted from
 * the last ')' on: field 3 (state) follows it, field 22 (start time) is 19 fields later.
 */
export function parseProcStat(line: string): ProcStat | null {
  const close = line.lastIndexOf(')');
  if (close < 0) return null;
  const fields = line
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const state = fields[0];
  const startTicks = fields[22 - 3];
  if (!state || !startTicks || !/^\d+$/.test(startTicks)) return null;
  return { state, startTicks };
}

/** The process's stat on Linux; null elsewhere, or when the process is gone. */
export async function readProcStat(pid: number): Promise<ProcStat | null> {
  const line = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  return line === null ? null : parseProcStat(line);
}
