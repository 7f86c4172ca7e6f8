import { existsSync } from 'node:fs';
import { CLI, type CliOptions, type CliResult, runCli } from './cli.js';

/** util-linux's `script`: runs a command in a real pseudo-terminal (Debian's bsdutils has it). */
export const SCRIPT = '/usr/bin/script';
export const HAVE_SCRIPT = existsSync(SCRIPT);

const quoted = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

/**
 * Runs the built CLI with its stdout and stderr on a pseudo-terminal `columns` wide (set with
 * `stty` inside it, as a resized window would be): `stdout` is everything the terminal received.
 */
export function runInTerminal(args: readonly string[], columns: number, options: CliOptions = {}): Promise<CliResult> {
  const command = `stty cols ${columns} rows 24 && exec ${[process.execPath, CLI, ...args].map(quoted).join(' ')}`;
  return runCli(['-q', '-e', '-c', command, '/dev/null'], { ...options, command: SCRIPT });
}

/** What a terminal shows after `output`: its lines, how often a line wrapped, the widest text written on one line. */
export interface Screen {
  lines: string[];
  wraps: number;
  /** How many times the cursor went back to the start of a line to redraw it (`\r` then erase). */
  redraws: number;
}

/**
 * A small terminal `columns` wide, as xterm behaves: text written past the last column wraps to
 * a new line (the cursor waits at the margin until the next character); `\r` goes back to the
 * start of the line the cursor is on, `\n` down a line, `ESC [ 2 K` erases the line. Other
 * escape sequences are skipped.
 */
export function terminalScreen(output: string, columns: number): Screen {
  const lines: string[][] = [[]];
  let row = 0;
  let column = 0;
  let wraps = 0;
  let redraws = 0;
  for (let i = 0; i < output.length; i++) {
    const char = output[i]!;
    if (char === '\r') column = 0;
    else if (char === '\n') {
      row++;
      column = 0;
      lines[row] ??= [];
    } else if (char === '\x1b') {
      const sequence = /^\x1b\[([0-9;]*)([A-Za-z])/.exec(output.slice(i, i + 16));
      if (!sequence) continue;
      if (sequence[2] === 'K' && sequence[1] === '2') {
        lines[row] = [];
        redraws++;
      }
      i += sequence[0].length - 1;
    } else {
      if (column === columns) {
        wraps++;
        row++;
        column = 0;
        lines[row] ??= [];
      }
      lines[row]![column++] = char;
    }
  }
  return { lines: lines.map((line) => Array.from(line, (char) => char ?? ' ').join('')), wraps, redraws };
}
