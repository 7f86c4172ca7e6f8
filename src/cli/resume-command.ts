import type { RunConfig } from '../job/config.js';
import type { Redactor } from '../record/redactor.js';
import { invocation, shellQuote } from './invocation.js';
import type { CliSession } from './io.js';

/**
 * The command that resumes this run: the user's own command line, `--resume` for `--force`,
 * `--out` named; `budgetFlag` (`--max-total-tokens N`, `--max-cost USD`) in place of the same
 * flag, or a flag alone (`--limit`) left out. The key typed into an argument (`--header "api-key:
 * $KEY"`, the shell having filled it in) is written back as its variable, `"${CHATBATCH_API_KEY}"`:
 * the line is printed, and must neither show the key nor, with it masked, fail when pasted.
 */
export function resumeCommand({ io, argv: given }: CliSession, config: RunConfig, redactor: Redactor, budgetFlag: string[] = []): string {
  const argv = given.filter((arg) => arg !== '--force' && arg !== '--resume');
  const [flag] = budgetFlag;
  if (flag !== undefined) {
    const at = argv.findIndex((arg) => arg === flag || arg.startsWith(`${flag}=`));
    if (at >= 0) argv.splice(at, argv[at] === flag ? 2 : 1);
  }
  if (!argv.includes('--out') && !argv.some((a) => a.startsWith('--out='))) argv.push('--out', config.outDir);
  // The redactor decides what is a secret: a placeholder key (`none`) is no secret, and is left as typed.
  const variable = config.apiKeyFile === null && redactor.redact(config.apiKey) !== config.apiKey ? config.apiKeyEnv : null;
  const quote = (arg: string) => keyAsVariable(arg, config.apiKey, variable);
  const added = budgetFlag.length > 1 ? budgetFlag : [];
  return [invocation(io.script, io.env, io.cwd), ...[...argv, '--resume', ...added].map(quote)].join(' ');
}

/** `arg` quoted for a POSIX shell, the key in it (when read from `variable`) written as `${variable}` in double quotes. */
function keyAsVariable(arg: string, key: string, variable: string | null): string {
  if (variable === null || !arg.includes(key)) return shellQuote(arg);
  const escaped = arg.split(key).map((part) => part.replace(/[\\"$`]/g, (char) => `\\${char}`));
  return `"${escaped.join(`\${${variable}}`)}"`;
}
