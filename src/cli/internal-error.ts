import type { Redactor } from '../record/redactor.js';
import { markRunsCrashed, redactForRunsInProgress } from '../run/crash-marks.js';
import type { CliIo } from './io.js';
import { logFormatOf, messageLine } from './log-format.js';

export interface InternalErrorContext extends Pick<CliIo, 'stderr' | 'env'> {
  /** Whether the command was a run (the hint then says resume). */
  resumable: boolean;
  /** The command line, for its --log-format. */
  argv: readonly string[];
  /** The redactor of the run the command made, if any (runs still in progress are masked anyway). */
  redactor?: Redactor | null;
}

/**
 * The last resort for an error no code path expected (a bug): one line on stderr, no stack trace
 * unless CHATBATCH_DEBUG=1, and the manifests of runs in progress marked `error`. The caller
 * exits with EXIT.internalError.
 */
export async function reportInternalError(error: unknown, context: InternalErrorContext): Promise<void> {
  const redact = (text: string): string => redactForRunsInProgress(context.redactor ? context.redactor.redact(text) : text);
  const message = oneLine(redact(error instanceof Error ? error.message || error.name : String(error)));
  const hint = context.resumable ? 'please report; the journal is consistent, resume with --resume' : 'please report';
  context.stderr.write(messageLine(logFormatOf(context.argv), `internal error: ${message} (${hint})`, 'error'));
  if (context.env.CHATBATCH_DEBUG === '1' && error instanceof Error && error.stack) context.stderr.write(`${redact(error.stack)}\n`);
  await markRunsCrashed(message);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
