import type { Argv } from 'yargs';

/**
 * `run --help` in groups, in the order a user sets up a run. Every flag of `run` is in exactly
 * one group (a test holds this), so a new flag cannot fall into an unnamed list.
 */
export const RUN_HELP_GROUPS: ReadonlyArray<readonly [title: string, flags: readonly string[]]> = [
  ['Input:', ['job', 'template', 'system', 'id-field', 'keep-input', 'row-params', 'repeat', 'shard', 'limit']],
  ['Endpoint:', ['base-url', 'model', 'api-key-env', 'api-key-file', 'header', 'param', 'allow-param', 'simulate']],
  [
    'Pacing and limits:',
    [
      'concurrency',
      'rpm',
      'tpm',
      'max-attempts',
      'timeout-ms',
      'connect-timeout-ms',
      'headers-timeout-ms',
      'row-deadline-ms',
      'max-retry-wait-ms',
      'max-outage-ms',
      'max-total-tokens',
      'max-cost',
      'price',
    ],
  ],
  ['Output:', ['out', 'format', 'escape-formulas', 'bom', 'cache']],
  ['Replies:', ['reply-format', 'reply-schema', 'reply-retries', 'expect', 'grade', 'judge', 'judge-template']],
  ['Run control:', ['resume', 'allow-dropped-rows', 'retry-failed', 'force', 'dry-run', 'grace-ms', 'quiet', 'log-format']],
];

export function groupRunHelp<T>(yargs: Argv<T>): Argv<T> {
  let grouped = yargs;
  for (const [title, flags] of RUN_HELP_GROUPS) grouped = grouped.group([...flags], title);
  return grouped;
}
