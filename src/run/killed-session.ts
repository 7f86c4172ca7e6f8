import { roundUsd } from '../cost/cost-summary.js';
import { isUsd } from '../cost/earlier-cost.js';
import type { Manifest, RunSession, UsageJournalMark } from '../output/manifest.js';
import { sumUsage, tokenCount } from '../record/usage-totals.js';
import { forEachJournalLine } from '../state/journal-line-reader.js';
import { readLine } from '../state/journal-lines.js';
import { type PaidPart, paidParts, recordPaid } from '../state/journal-usage.js';
import { openRegularFile } from '../state/regular-file.js';

/**
 * Which journal a mark is in. A session's end replaces the journal by a compacted one whose
 * header names the new record files' temporary names (random, output/journal-index.ts): that
 * name tells one journal from the next; a journal never compacted has no header (null).
 */
export function journalGeneration(header: Record<string, unknown> | null): string | null {
  if (header === null) return null;
  return typeof header.output === 'string' ? header.output : JSON.stringify(header);
}

/**
 * A session killed with kill -9 left the manifest as its last write had it: its usage and
 * dollars then, and the journal length they cover (`usage_journal`). The rows it journaled
 * after that paid too: each line carries what its row paid since its previous line
 * (state/journal-usage.ts), and those are added here, to the killed session's figures and the
 * directory's, before the resume reads them (its budget, its manifest). The mark is removed:
 * counted once, however many resumes follow. Nothing is added when the journal is no longer
 * the one the mark is in (the session was killed as its end replaced its journal: its last
 * write, just before, covered every line), or when no session has a mark (an older
 * chatbatch's manifest: as before, its last 2 s are not counted). `header`: the journal's, as
 * `journalHeader` reads it (a resume has read it already). Returns the lines counted.
 */
export async function countKilledSession(manifest: Manifest, journal: string, header: Record<string, unknown> | null): Promise<number> {
  // A manifest read by --dry-run is checked only for its shape: sessions may be missing.
  const sessions = Array.isArray(manifest.sessions) ? manifest.sessions : [];
  const marked = sessions.findLast((session) => session.usage_journal !== undefined);
  const mark = marked?.usage_journal;
  for (const session of sessions) delete session.usage_journal;
  if (marked?.status !== 'running' || !isMark(mark)) return 0;
  if (journalGeneration(header) !== mark.journal) return 0;
  const { lines, parts } = await paidAfter(journal, mark.bytes);
  for (const part of parts) addPart(manifest, marked, part);
  return lines;
}

function isMark(value: unknown): value is UsageJournalMark {
  if (typeof value !== 'object' || value === null) return false;
  const { journal, bytes } = value as Record<string, unknown>;
  return (journal === null || typeof journal === 'string') && Number.isSafeInteger(bytes) && (bytes as number) >= 0;
}

/** The paid parts of the record lines from `from` to the journal's end that verify, and how many lines carried some. */
async function paidAfter(journal: string, from: number): Promise<{ lines: number; parts: PaidPart[] }> {
  const parts: PaidPart[] = [];
  let lines = 0;
  // Only a regular file: report and --dry-run read a directory they do not lock, where a FIFO
  // in the journal's place would hold the open forever (a resume refuses such a journal first).
  const handle = await openRegularFile(journal).catch(() => null);
  if (handle === null) return { lines, parts };
  try {
    // A torn last line (no newline) is not given: it verifies nothing, and the resume cuts it off.
    await forEachJournalLine(handle, from, (buffer, start, newline) => {
      const found = linePaid(buffer, start, newline);
      if (found.length > 0) lines++;
      parts.push(...found);
    });
  } finally {
    await handle.close();
  }
  return { lines, parts };
}

/** What a record line that verifies says its row paid; nothing for any other line. */
function linePaid(buffer: Buffer, start: number, newline: number): PaidPart[] {
  const line = readLine(buffer, start, newline);
  if (line?.kind !== 'record') return [];
  try {
    const entry: unknown = JSON.parse(buffer.toString('utf8', line.entryStart, line.recordStart - 1));
    const paid = typeof entry === 'object' && entry !== null ? (entry as { u?: unknown }).u : undefined;
    if (typeof paid !== 'number') return paidParts(paid);
    // One response, the record's usage: read from the record.
    const record: unknown = JSON.parse(buffer.toString('utf8', line.recordStart, newline));
    return typeof record === 'object' && record !== null ? recordPaid(paid, record) : [];
  } catch {
    return [];
  }
}

/**
 * Adds a part to the session's figures and the directory's: the model's, or the judge's (`model`
 * null). The manifest is a file a user may have edited: a figure's container that is not an
 * object as written is left as it is (assigning into it would throw, and report, --dry-run and
 * --resume would then stop on an internal error the user cannot get past).
 */
function addPart(manifest: Manifest, session: RunSession, part: PaidPart): void {
  session.cost_usd = plusUsd(session.cost_usd, part.usd);
  const cost = objectOrNull(manifest.cost);
  if (cost) cost.usd = plusUsd(cost.usd, part.usd);
  if (part.model === null) {
    const judge = objectOrNull(manifest.judge);
    if (!judge) return;
    judge.usage = sumUsage([objectOrNull(judge.usage) ?? undefined, part.usage]);
    const judgeCost = objectOrNull(judge.cost);
    if (judgeCost) judgeCost.usd = plusUsd(judgeCost.usd, part.usd);
    return;
  }
  session.usage = sumUsage([objectOrNull(session.usage) ?? undefined, part.usage]);
  manifest.usage = sumUsage([manifest.usage, part.usage]);
  const model = objectOrNull(ownField(cost?.by_model, part.model));
  if (model) model.usd = plusUsd(model.usd, part.usd);
  session.cost_by_model ??= {};
  const byModel = objectOrNull(session.cost_by_model);
  if (!byModel) return;
  // A model the session's figures do not name: its tokens only, priced by whoever knows its price (cost/earlier-cost.ts).
  const before = objectOrNull(ownField(byModel, part.model)) ?? {};
  const figures = {
    usd: plusUsd(before.usd ?? null, part.usd),
    prompt_tokens: (tokenCount(before.prompt_tokens) ?? 0) + part.prompt,
    cached_tokens: (tokenCount(before.cached_tokens) ?? 0) + part.cached,
    completion_tokens: (tokenCount(before.completion_tokens) ?? 0) + part.completion,
  };
  // defineProperty, not assignment: a model named `__proto__` would otherwise replace the object's prototype.
  Object.defineProperty(byModel, part.model, { value: figures, writable: true, enumerable: true, configurable: true });
}

/**
 * The field `name` of `value` when it is its own: a model name is the user's, and `__proto__`
 * read from a plain object is Object.prototype, whose `usd` set here every object would then have.
 */
function ownField(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : undefined;
}

/** `value` when it is an object (not an array) whose fields may be read and set; else null. */
function objectOrNull(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** A figure plus `usd`; an unknown figure (null: no price) stays unknown. */
function plusUsd(figure: unknown, usd: number): number | null {
  return isUsd(figure) ? roundUsd(figure + usd) : null;
}
