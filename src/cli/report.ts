import type { Argv, CommandModule } from 'yargs';
import { outDirPaths } from '../state/out-dir.js';
import { EXIT } from './exit-codes.js';
import type { CliSession } from './io.js';
import { terminalSafe } from './terminal-safe.js';

interface ReportArgs {
  dir: string;
  html?: string;
  groupBy?: string;
  json?: boolean;
}

export const reportCommand = (session: CliSession): CommandModule<object, ReportArgs> => ({
  command: 'report <dir>',
  describe: 'Summarise a run: counts, latency percentiles, attempts, throughput, slowest rows, common errors',
  builder: (yargs: Argv) =>
    yargs
      .positional('dir', { type: 'string', demandOption: true, describe: "The run's output directory" })
      .option('html', {
        type: 'string',
        describe: 'Also write a self-contained HTML page with charts to FILE',
        // `--html` with no file name would otherwise be '' and write nothing, silently.
        coerce: (file: unknown) => {
          if (typeof file !== 'string' || file.trim() === '') throw new Error('--html needs a file name, e.g. --html report.html');
          return file;
        },
      })
      .option('group-by', {
        type: 'string',
        describe: "With --expect: each model's accuracy per value of FIELD, a row field the records keep (run with --keep-input)",
        coerce: (field: unknown) => {
          if (typeof field !== 'string' || field.trim() === '') throw new Error('--group-by needs a field name, e.g. --group-by category');
          return field;
        },
      })
      .option('json', {
        type: 'boolean',
        describe:
          'Print the report as one JSON object instead of text: counts, tokens, dollars, accuracy with its interval, a line per model, agreement, paired comparison, confusion matrix (docs/reporting.md)',
      })
      .example('$0 report out/nightly', 'Print the summary')
      .example('$0 report out/nightly --json > summary.json', 'The same, for a script or a dashboard')
      .example('$0 report out/nightly --html report.html', 'Write a page to open in a browser') as unknown as Argv<ReportArgs>,
  handler: async (args) => {
    // Loaded here, not at start-up: every other command would pay for them.
    const [
      { refusalToOverwrite, writeUserFile },
      { asWriteFailure },
      { isHtmlReport, renderHtmlReport },
      { runReportData },
      { formatTextReport },
      { readViewRows },
      { jsonReport },
    ] = await Promise.all([
      import('../output/user-file.js'),
      import('../state/write-failed.js'),
      import('../report/html-report.js'),
      import('../report/run-report.js'),
      import('../report/text-report.js'),
      import('../report/rows-view.js'),
      import('../report/json-report.js'),
    ]);
    const refusal = args.html ? await refusalToOverwrite(args.html, isHtmlReport) : null;
    if (refusal) return refuse(session, `--html ${refusal}`);
    const paths = outDirPaths(args.dir);
    const report = await runReportData(args.dir, paths, args.groupBy ?? null);
    if (typeof report === 'string') return refuse(session, report);
    const { stats, title, answerField } = report;
    for (const problem of stats.damaged ?? []) session.io.stderr.write(`chatbatch: ${terminalSafe(problem)}\n`);
    // Every value in it comes from files anyone may have edited, and from servers. (In JSON,
    // the characters terminalSafe escapes are inside strings: escaped, they read back the same.)
    const text = args.json ? `${JSON.stringify(jsonReport(report, args.dir), null, 2)}\n` : formatTextReport(stats, title);
    session.io.stdout.write(terminalSafe(text));
    if (args.html) {
      const models = stats.models?.models.map((line) => line.model);
      const view = await readViewRows(paths.output, paths.errors, undefined, models, answerField);
      await writeUserFile(args.html, renderHtmlReport(stats, title, view)).catch((error: unknown) => {
        throw asWriteFailure(error, args.html!);
      });
      session.io.stderr.write(`chatbatch: wrote ${args.html}\n`);
    }
  },
});

/** A report that cannot be made as asked: said on stderr, exit 2. */
function refuse(session: CliSession, message: string): void {
  session.io.stderr.write(`chatbatch: ${terminalSafe(message)}\n`);
  session.exitCode = EXIT.usage;
}
