import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';

export type InputFormat = 'jsonl' | 'csv';

function prompt(i: number): string {
  return `row ${i}: name one colour, briefly`;
}

/** Writes `rows` short prompts ({"id":"r<i>","prompt":"row <i> ..."}) as JSONL or CSV (id,prompt). */
export async function generateInput(dir: string, format: InputFormat, rows: number): Promise<string> {
  const file = join(dir, `input-${rows}.${format}`);
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
