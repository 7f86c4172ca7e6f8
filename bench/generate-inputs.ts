import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';

export type InputFormat = 'jsonl' | 'csv' | 'parquet';

function prompt(i: number): string {
  return `row ${i}: name one colour, briefly`;
}

/** Writes `rows` short prompts ({"id":"r<i>","prompt":"row <i> ..."}) as JSONL, CSV (id,prompt) or Parquet (the same two columns). */
export async function generateInput(dir: string, format: InputFormat, rows: number): Promise<string> {
  const file = join(dir, `input-${rows}.${format}`);
  if (format === 'parquet') return generateParquet(file, rows);
  const out = createWriteStream(file);
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, 'drain');
  };
  if (format === 'csv') await write('id,prompt\n');
  let chunk = '';
  for (let i = 1; i <= rows; i++) {
    chunk += format === 'jsonl' ? `${JSON.stringify({ id: `r${i}`, prompt: prompt(i) })}\n` : `r${i},"${prompt(i).replace(/"/g, '""')}"\n`;
    if (chunk.length > 1 << 16) {
      await write(chunk);
      chunk = '';
    }
  }
  if (chunk) await write(chunk);
  out.end();
  await once(out, 'close');
  return file;
}

/**
 * The same rows as a Parquet file of row groups of 122,880 rows (DuckDB's default; pyarrow's is
 * 1,048,576), snappy, written a row group at a time.
 */
async function generateParquet(file: string, rows: number): Promise<string> {
  const { ByteWriter, ParquetWriter } = await import('hyparquet-writer');
  const out = createWriteStream(file);
  const bytes = new ByteWriter();
  const drain = (): void => {
    out.write(Buffer.from(new Uint8Array(bytes.buffer, 0, bytes.index)));
    bytes.index = 0;
  };
  const writer = new ParquetWriter({
    writer: Object.assign(bytes, { flush: drain, finish: drain }),
    schema: [
      { name: 'root', num_children: 2 },
      { name: 'id', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
      { name: 'prompt', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
    ],
  });
  const groupRows = 122_880;
  for (let start = 1; start <= rows; start += groupRows) {
    const ids: string[] = [];
    const prompts: string[] = [];
    for (let i = start; i < Math.min(rows + 1, start + groupRows); i++) {
      ids.push(`r${i}`);
      prompts.push(prompt(i));
    }
    writer.write({
      columnData: [
        { name: 'id', data: ids },
        { name: 'prompt', data: prompts },
      ],
      rowGroupSize: ids.length,
    });
    if (out.writableNeedDrain) await once(out, 'drain');
  }
  writer.finish();
  out.end();
  await once(out, 'close');
  return file;
}

/** Generates each (format, rows) input once per benchmark run. */
export class InputCache {
  private readonly files = new Map<string, Promise<string>>();
  constructor(private readonly dir: string) {}
  get(format: InputFormat, rows: number): Promise<string> {
    const key = `${format}:${rows}`;
    let file = this.files.get(key);
    if (!file) {
      file = generateInput(this.dir, format, rows);
      this.files.set(key, file);
    }
    return file;
  }
}
