import { nearestName } from '../input/nearest-name.js';
import { flagOptions } from '../job/options.js';

const UNKNOWN = /^Unknown arguments?: (.+)$/;

/**
 * yargs' "Unknown argument: concurency" with a hint for each mistyped flag: "did you mean
 * --concurrency?", from the options the command knows. Any other message is returned as it is.
 */
export function withFlagHints(message: string, knownOptions: readonly string[]): string {
  const match = UNKNOWN.exec(message);
  if (!match) return message;
  const hints = match[1]!
    .split(', ')
    .map((word) => {
      const nearest = nearestName(
        word.replace(/^-+/, ''),
        knownOptions.filter((name) => name.length > 1),
      );
      return nearest ? `--${word.replace(/^-+/, '')}: did you mean --${nearest}?` : null;
    })
    .filter((hint): hint is string => hint !== null);
  return hints.length === 0 ? message : `${message} (${hints.join('; ')})`;
}

/** Flags of the commands other than `run` (whose flags come from the option table). */
const OTHER_COMMANDS_FLAGS: Readonly<Record<string, readonly string[]>> = {
  report: ['html'],
  merge: ['out'],
  validate: ['max-problems'],
  simulate: ['port', 'host', 'latency-ms', 'jitter-ms', 'api-key-env', 'models', 'retry-after-ms', 'seed'],
};

/** The flags a command takes, for hints: `run`'s from the option table and RUN_ONLY_FLAGS. */
export function knownFlags(command: string | undefined): string[] {
  const common = ['help', 'version'];
  if (command === 'run') return [...flagOptions().map(([, spec]) => spec.flag), ...RUN_ONLY_FLAGS, ...common];
  return [...(OTHER_COMMANDS_FLAGS[command ?? ''] ?? Object.values(OTHER_COMMANDS_FLAGS).flat()), ...common];
}

/** `run`'s flags that are not settings of the option table. */
export const RUN_ONLY_FLAGS = ['job', 'simulate', 'quiet', 'dry-run', 'param', 'log-format'] as const;
