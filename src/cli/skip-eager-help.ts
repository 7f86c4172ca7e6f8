import type { Argv } from 'yargs';

interface YargsInternals {
  getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: unknown } };
}

/**
 * yargs formats a command's whole help text (cliui, wrap-ansi, string-width) right after it
 * starts the command's handler, in case the handler later asks to show it. Ours never do; help
 * asked for with --help, and usage errors, are formatted on demand as before. Skipping it takes
 * ~55 ms of CPU off the start of every run, spent while the run is opening its files. (The
 * Angular CLI does the same.) Returns false when this yargs no longer has the hook, so a test
 * notices an upgrade that moved it.
 */
export function skipEagerHelpFormatting(cli: Argv): boolean {
  const usage = (cli as unknown as YargsInternals).getInternalMethods?.().getUsageInstance?.();
  if (!usage || typeof usage.cacheHelpMessage !== 'function') return false;
  usage.cacheHelpMessage = () => {};
  return true;
}
