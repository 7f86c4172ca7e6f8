#!/usr/bin/env node
import { EXIT } from './exit-codes.js';
import { reportInternalError } from './internal-error.js';
import type { CliIo } from './io.js';
import { runCli } from './run-cli.js';

// The process shell: the only place that reads process.argv and process.env, installs signal
// handlers and exits. Every command runs in runCli, which tests call in process.
const argv = process.argv.slice(2);
const io: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  script: process.argv[1] ?? '',
  trapSignals: (onSignal) => {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    return () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
  },
  exitNow: (code) => process.exit(code),
};

// The last resort: whatever escapes every command, even from a callback nothing awaits, ends in
// one line and its own exit code, never in a stack trace.
let crashing = false;
const lastResort = (error: unknown): void => {
  if (crashing) return;
  crashing = true;
  setTimeout(() => process.exit(EXIT.internalError), 5_000).unref(); // if marking the manifest hangs
  void reportInternalError(error, { resumable: argv[0] === 'run', argv, stderr: process.stderr, env: process.env }).finally(() =>
    process.exit(EXIT.internalError),
  );
};
process.on('uncaughtException', lastResort);
// A reader that went away (`chatbatch run ... 2>&1 | head`) is no failure of the run: what it
// would have read is dropped, and the run ends with its own exit code.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') lastResort(error);
  });
}
process.on('unhandledRejection', lastResort);

const code = await runCli(argv, io);
// An internal error ends at once, whatever is still open; otherwise what is queued drains first.
if (code === EXIT.internalError) process.exit(code);
process.exitCode = code;
