import { invocation, shellQuote } from './invocation.js';
import type { CliSession } from './io.js';

/**
 * Flags of a simulated run that a run against an endpoint leaves out: the simulator, the model it
 * played, and carrying on the simulated run (`--force` replaces it; with `--resume` as well the
 * command failed).
 */
const SIMULATED_ONLY = new Set(['--simulate', '--force', '--resume', '--allow-dropped-rows']);
/** Left out with the values that follow them (`--retry-failed` takes categories, or none). */
const RETRY_FLAG = '--retry-failed';
const WITH_VALUE = new Set(['--model', '--base-url']);

/**
 * After a run against the built-in simulator (`npm start`, `--simulate`): the same command
 * pointed at a real endpoint, with what to fill in, so the next step is on screen. The base URL
 * and the model are the console's (no default is guessed: README, "Running against a real
 * endpoint"); `--force` replaces the simulated records in the same output directory.
 */
export function realEndpointHint({ io, argv }: CliSession): string {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const flag = arg.split('=')[0]!;
    if (SIMULATED_ONLY.has(flag)) continue;
    if (flag === RETRY_FLAG) {
      while (!arg.includes('=') && argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('-')) i++;
      continue;
    }
    if (WITH_VALUE.has(flag)) {
      if (!arg.includes('=')) i++;
      continue;
    }
    kept.push(arg);
  }
  const command = [invocation(io.script, io.env, io.cwd), ...kept.map(shellQuote), '--base-url', 'URL', '--model', 'NAME', '--force'];
  return (
    "these replies were simulated. To send the same rows to a real endpoint, take URL and NAME as your provider's console shows them:\n" +
    `  export CHATBATCH_API_KEY=...   # or --api-key-file PATH\n  ${command.join(' ')}`
  );
}
