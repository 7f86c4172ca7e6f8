import type { CommandModule } from 'yargs';
import { jobJsonSchema } from '../job/json-schema.js';

export const schemaCommand: CommandModule = {
  command: 'schema',
  describe: "Print the job file's JSON Schema (for editor completion and checks)",
  handler: () => {
    process.stdout.write(`${JSON.stringify(jobJsonSchema(), null, 2)}\n`);
  },
};
