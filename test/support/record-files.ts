import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { type JournalEntry, type RecordFile, readLine } from '../../src/state/journal-lines.js';
import { referenceLineText } from '../../src/state/reference-line.js';

/** A finished run's journal, read line by line: the header, then what each line says. */
export interface JournalView {
  lines: string[];
  /** Per line: its kind, and for a reference its entry and where its record is. */
  parsed: Array<ReturnType<typeof readLine>>;
}

export async function readJournalView(outDir: string): Promise<JournalView> {
  const text = await readFile(path.join(outDir, '.chatbatch', 'journal.jsonl'));
  const lines: string[] = [];
  const parsed: JournalView['parsed'] = [];
  for (let start = 0, newline = text.indexOf(10); newline !== -1; start = newline + 1, newline = text.indexOf(10, start)) {
    lines.push(text.toString('utf8', start, newline));
    parsed.push(readLine(text, start, newline));
  }
  return { lines, parsed };
}

const FILES: Record<RecordFile, string> = { o: 'output.jsonl', e: 'errors.jsonl' };

/**
 * Rewrites a finished run's records as `edit` says (it gets each record file's lines, without
 * newlines, and changes them in place), then its journal's references to match, checksums
 * recomputed: what a hand that knows the formats would do. Only for a journal of references.
 */
export async function rewriteRecords(outDir: string, edit: (records: Record<RecordFile, string[]>) => void): Promise<void> {
  const records = {
    o: await recordLines(path.join(outDir, FILES.o)),
    e: await recordLines(path.join(outDir, FILES.e)),
  };
  const view = await readJournalView(outDir);
  // Which record each reference names, by its place in its file.
  const place = (file: RecordFile, offset: number): number => {
    let at = 0;
    for (let index = 0; index < records[file].length; index++) {
      if (at === offset) return index;
      at += Buffer.byteLength(records[file][index]!) + 1;
    }
    throw new Error(`no record of ${FILES[file]} starts at ${offset}`);
  };
  const named = view.parsed.map((line) =>
    line?.kind === 'reference'
      ? { entry: line.entry, file: line.reference.file, index: place(line.reference.file, line.reference.offset) }
      : null,
  );
  edit(records);
  for (const file of ['o', 'e'] as const)
    await writeFile(path.join(outDir, FILES[file]), records[file].map((line) => `${line}\n`).join(''));
  const journal = view.lines.map((line, i) => {
    const reference = named[i];
    if (!reference) return `${line}\n`;
    return referenceTo(reference.entry, reference.file, records[reference.file], reference.index);
  });
  await writeFile(path.join(outDir, '.chatbatch', 'journal.jsonl'), journal.join(''));
}

function referenceTo(entry: JournalEntry, file: RecordFile, lines: string[], index: number): string {
  let offset = 0;
  for (let i = 0; i < index; i++) offset += Buffer.byteLength(lines[i]!) + 1;
  const bytes = Buffer.from(lines[index]!);
  return referenceLineText(entry, { file, offset, length: bytes.length, crc: crc32(bytes) });
}

async function recordLines(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}
