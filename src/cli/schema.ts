import type { CommandModule } from 'yargs';
import type { CliSession } from './io.js';

export const schemaCommand = (session: CliSession): CommandModule => ({
  command: 'schema',
  describe: "Print the job file's JSON Schema (for editor completion and checks)",
  builder: (yargs) =>
    yargs.example('$0 schema > jobs/chatbatch.schema.json', 'Save it, then put "$schema": "./chatbatch.schema.json" in a job file'),
  handler: async () => {
    const { jobJsonSchema } = await import('../job/json-schema.js');
    session.io.stdout.write(`${JSON.stringify(jobJsonSchema(), null, 2)}\n`);
  },
});
