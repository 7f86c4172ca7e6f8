import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { MAX_DATA_COLUMNS } from './data-columns.js';
import { KindTally, type LeafKind } from './parquet-kinds.js';

/** What the records hold beyond the fields every record has: the optional columns of the Parquet files. */
export interface RecordsSeen {
  /** The reply data's top-level fields and their kinds (schema properties first); null when some data is not an object. */
  dataFields: Array<{ name: string; kind: LeafKind }> | null;
  /** Some success has `data`. */
  data: boolean;
  correct: boolean;
  replies: boolean;
  replyText: boolean;
  /** Some record has the model's `reasoning`. */
  reasoning: boolean;
  /** Some record has `input` (--keep-input). */
  input: boolean;
}

/**
 * Reads the records files once before writing, since a Parquet file's schema comes first and a
 * streamed run knows its fields only at the end. Only lines naming an optional field are parsed
 * (JSON.stringify writes `"name":` exactly).
 */
export async function scanRecords(outputFile: string, errorsFile: string, schemaProperties: readonly string[]): Promise<RecordsSeen> {
  const fields = new Map<string, KindTally>(schemaProperties.slice(0, MAX_DATA_COLUMNS).map((name) => [name, new KindTally()]));
  const seen: RecordsSeen = {
    dataFields: [],
    data: false,
    correct: false,
    replies: false,
    replyText: false,
    reasoning: false,
    input: false,
  };
  let whole = false;
  for await (const line of lines(outputFile)) {
    if (!/"(data|correct|replies|input|reasoning)":/.test(line)) continue;
    const record = JSON.parse(line) as { data?: unknown; correct?: unknown; replies?: unknown; input?: unknown; reasoning?: unknown };
    seen.reasoning ||= typeof record.reasoning === 'string';
    seen.correct ||= record.correct !== undefined;
    seen.replies ||= record.replies !== undefined;
    seen.input ||= record.input !== undefined;
    if (record.data === undefined) continue;
    seen.data = true;
    if (typeof record.data !== 'object' || record.data === null || Array.isArray(record.data)) whole = true;
    else tallyFields(record.data as Record<string, unknown>, fields);
  }
  for await (const line of lines(errorsFile)) {
    if (!/"(reply_text|input|correct|reasoning)":/.test(line)) continue;
    const record = JSON.parse(line) as { reply_text?: unknown; input?: unknown; correct?: unknown; reasoning?: unknown };
    seen.reasoning ||= typeof record.reasoning === 'string';
    seen.replyText ||= typeof record.reply_text === 'string';
    seen.input ||= record.input !== undefined;
    seen.correct ||= record.correct !== undefined;
  }
  seen.dataFields = whole ? null : [...fields].map(([name, tally]) => ({ name, kind: tally.kind }));
  return seen;
}

function tallyFields(data: Record<string, unknown>, fields: Map<string, KindTally>): void {
  for (const key of Object.keys(data)) {
    let tally = fields.get(key);
    if (!tally) {
      // A reply with no schema may bring any keys: past the cap they stay in output.jsonl only.
      if (fields.size >= MAX_DATA_COLUMNS) continue;
      tally = new KindTally();
      fields.set(key, tally);
    }
    tally.add(data[key]);
  }
}

function lines(file: string): AsyncIterable<string> {
  return createInterface({ input: createReadStream(file), crlfDelay: Infinity });
}
