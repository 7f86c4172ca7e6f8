import { describe, expect, it } from 'vitest';
import yargs, { type Argv } from 'yargs';
import { skipEagerHelpFormatting } from '../../src/cli/skip-eager-help.js';

interface Usage {
  hasCachedHelpMessage(): boolean;
}

function cliWithOneCommand(argv: string[], ran: string[]): Argv {
  return yargs(argv)
    .command(
      'go',
      'does a thing',
      (y) => y.option('speed', { type: 'number', describe: 'how fast' }),
      async () => {
        ran.push('go');
      },
    )
    .strict()
    .exitProcess(false);
}

function usageOf(cli: Argv): Usage {
  return (cli as unknown as { getInternalMethods(): { getUsageInstance(): Usage } }).getInternalMethods().getUsageInstance();
}

describe('skipping the help text yargs formats on every command', () => {
  it('finds the hook in the installed yargs', () => {
    expect(skipEagerHelpFormatting(cliWithOneCommand([], []))).toBe(true);
  });

  it('runs the command without formatting its help (yargs alone formats it)', async () => {
    const ran: string[] = [];
    const plain = cliWithOneCommand(['go'], ran);
    await plain.parseAsync();
    expect(usageOf(plain).hasCachedHelpMessage()).toBe(true);

    const skipping = cliWithOneCommand(['go', '--speed', '3'], ran);
    skipEagerHelpFormatting(skipping);
    await skipping.parseAsync();
    expect(usageOf(skipping).hasCachedHelpMessage()).toBe(false);
    expect(ran).toEqual(['go', 'go']);
  });

  it('still gives the full help when asked for', async () => {
    const help = async (skip: boolean): Promise<string> => {
      const cli = cliWithOneCommand([], []);
      if (skip) skipEagerHelpFormatting(cli);
      return new Promise((resolve) => {
        void cli.parseAsync(['go', '--help'], {}, (_error, _argv, output) => resolve(output));
      });
    };
    const withSkip = await help(true);
    expect(withSkip).toContain('--speed');
    expect(withSkip).toBe(await help(false));
  });
});
