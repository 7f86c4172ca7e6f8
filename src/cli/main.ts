#!/usr/bin/env node
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { runCommand } from './run.js';
import { validateCommand } from './validate.js';
import { reportCommand } from './report.js';
import { simulateCommand } from './simulate.js';
import { mergeCommand } from './merge.js';
import { schemaCommand } from './schema.js';

const cli = yargs(hideBin(process.argv))
  .scriptName('chatbatch')
  .usage('$0 <command> [options]\n\nBatch processor for OpenAI-compatible chat-completion endpoints.')
  .command(runCommand)
  .command(validateCommand)
  .command(reportCommand)
  .command(simulateCommand)
  .command(mergeCommand)
  .command(schemaCommand)
  .strict()
  .demandCommand(1, 'Name a command: run, validate, report, merge, simulate, schema.')
  .recommendCommands()
  .help()
  .alias('help', 'h')
  .version()
  .wrap(Math.min(110, process.stdout.columns || 110))
  // Usage errors are exit 2 (the contract), not yargs' default 1.
  .fail((message, error) => {
    if (error && !message) throw error;
    process.stderr.write(`chatbatch: ${message ?? error?.message}\nRun 'chatbatch --help' for usage.\n`);
    process.exit(2);
  });

await cli.parseAsync();
