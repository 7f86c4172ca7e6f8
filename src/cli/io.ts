/** Where a command writes: the process's stdout/stderr, or a test's capture. */
export interface CliOutput {
  write(text: string): unknown;
  /** A terminal: the live progress line (progress.ts). */
  isTTY?: boolean;
  /** Its width in characters, when a terminal: help is wrapped to it. */
  columns?: number;
}

/**
 * Everything a command reads from or does to its process, passed in: `main.ts` hands over the
 * process's own, a test its captures. No command touches `process.argv`, `process.env`,
 * `process.stdout`/`stderr`, signals or `process.exit` itself.
 */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  env: Readonly<Record<string, string | undefined>>;
  /**
   * The working directory relative paths are resolved against. Files are opened relative to the
   * process's own, so this must be it (a test changes to its folder first: test/support/cli-in-process.ts).
   */
  cwd: string;
  /** The script the user ran (`process.argv[1]`), for the "run again with --resume" hint (invocation.ts). */
  script: string;
  /** Aborting it stops a run as a first Ctrl-C does (in-flight requests finish), or ends `simulate`; its reason, when a string, names it. */
  signal?: AbortSignal;
  /**
   * The process's SIGINT and SIGTERM, which only the shell installs: `onSignal` is called with
   * each one's name while a command handles them; the function returned hands them back.
   */
  trapSignals?: (onSignal: (name: string) => void) => () => void;
  /** Ends the process at once (a second Ctrl-C); without it a second stop request is only logged. */
  exitNow?: (code: number) => void;
}

/** What a command's handler shares with runCli: the io, the raw arguments, and the exit code it sets. */
export interface CliSession {
  io: CliIo;
  /** The arguments after the script name (`process.argv.slice(2)`). */
  argv: readonly string[];
  /**
   * Whether the command line may ask for help (`--help`, `-h`): only then does a command give yargs
   * the words of its help, which yargs lays out on every run of the command (see run.ts).
   */
  helpAsked: boolean;
  exitCode: number;
}
