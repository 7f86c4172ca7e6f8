import type { Argv, CommandModule } from 'yargs';
import { EXIT } from './exit-codes.js';
import type { CliSession } from './io.js';

interface MergeArgs {
  dirs: string[];
  out: string;
}

export const mergeCommand = (session: CliSession): CommandModule<object, MergeArgs> => ({
  command: 'merge <dirs..>',
  describe: 'Join the output directories of --shard K/N runs into one, in input order',
  builder: (yargs: Argv) =>
    yargs
      .positional('dirs', { type: 'string', array: true, demandOption: true, describe: 'Output directories of the shards' })
      .option('out', {
        type: 'string',
        demandOption: true,
        describe: 'Directory for the merged output.jsonl, errors.jsonl and manifest.json',
      })
      .example('$0 merge out/shard-0 out/shard-1 out/shard-2 out/shard-3 --out out/all', 'Join four shards') as unknown as Argv<MergeArgs>,
  handler: async (args) => {
    // Loaded here, not at start-up: every other command would pay for them.
    const [{ MergeError, mergeShards }, { MergeTargetError }, { WriteFailedError }, { usageSummary }, { costText, shardPriceNotes }] =
      await Promise.all([
        import('../output/merge.js'),
        import('../output/merge-target.js'),
        import('../state/write-failed.js'),
        import('../report/usage-text.js'),
        import('../cost/cost-summary.js'),
      ]);
    try {
      const report = await mergeShards(args.dirs, args.out);
      session.io.stderr.write(
        `chatbatch: merged ${report.shards} shard(s): ${report.succeeded} ok, ${report.failed} failed → ${args.out}\n`,
      );
      session.io.stderr.write(`  tokens: ${usageSummary(report.manifest.usage!)}, over every shard and session (the endpoint's figures)\n`);
      session.io.stderr.write(`  cost:   ${costText(report.manifest.cost)}, over every shard and session\n`);
      const differ = report.manifest.cost ? shardPriceNotes(report.manifest.cost) : [];
      if (differ.length > 0) {
        session.io.stderr.write(
          "  prices: the shards priced these models differently; the cost sums each shard's dollars at its own price (manifest: cost.by_model.MODEL.shard_prices):\n",
        );
        for (const line of differ) session.io.stderr.write(`    ${line}\n`);
      }
      for (const file of report.derivedFiles) session.io.stderr.write(`  also:   ${file}\n`);
      session.exitCode = report.failed > 0 ? EXIT.rowsFailed : EXIT.ok;
    } catch (error) {
      if (error instanceof WriteFailedError) {
        session.io.stderr.write(`chatbatch: cannot merge: ${error.explain('merge again')}\n`);
        session.exitCode = EXIT.writeFailed;
        return;
      }
      if (!(error instanceof MergeError || error instanceof MergeTargetError)) throw error;
      session.io.stderr.write(`chatbatch: cannot merge: ${error.message}\n`);
      session.exitCode = EXIT.usage;
    }
  },
});
