#!/usr/bin/env node
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { runCommand } from './run.js';
import { validateCommand } from './validate.js';
import { reportCommand } from './report.js';
import { simulateCommand } from './simulate.js';

const cli = yargs(hideBin(process.argv))
  .scriptName('chatbatch')
  .usage('$0 <command> [options]\n\nBatch processor for OpenAI-compatible chat-completion endpoints.')
  .command(runCommand)
  .command(validateCommand)
  .command(reportCommand)
  .command(simulateCommand)
  .strict()
  .demandCommand(1, 'Name a command: run, validate, simulate, report.')
  .recommendCommands()
  .help()
  .alias('help', 'h')
  .version()
  .wrap(Math.min(110, process.stdout.columns || 110));

await cli.parseAsync();
