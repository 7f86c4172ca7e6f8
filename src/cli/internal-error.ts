import { redactSecrets } from '../record/redact.js';
import { markRunsCrashed } from '../run/crash-marks.js';
import { logFormatOf, messageLine } from './log-format.js';

/**
 * The last resort for an error no code path expected (a bug): one line on stderr, no stack trace
 * unless CHATBATCH_DEBUG=1, and the manifests of runs in progress marked `error`. The caller
 * exits with EXIT.internalError.
 */
export async function reportInternalError(error: unknown, options: { resumable: boolean }): Promise<void> {
  const message = oneLine(error instanceof Error ? error.message || error.name : String(error));
  const hint = options.resumable ? 'please report; the journal is consistent, resume with --resume' : 'please report';
  process.stderr.write(messageLine(logFormatOf(process.argv), `internal error: ${message} (${hint})`, 'error'));
  if (process.env.CHATBATCH_DEBUG === '1' && error instanceof Error && error.stack) process.stderr.write(`${redactSecrets(error.stack)}\n`);
  await markRunsCrashed(message);
}

function oneLine(text: string): string {
  return redactSecrets(text)
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}
