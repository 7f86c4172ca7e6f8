import { fileChunks } from './file-chunks.js';
import { isJsonSpace } from './jsonl-reader.js';

/** The rows the JSONL reader will yield: lines with content, scanned as bytes without parsing JSON. */
export async function jsonlRowCount(file: string): Promise<number> {
  let rows = 0;
  let lineHasContent = false;
  let first = true;
  try {
    for await (const bytes of fileChunks(file)) {
      let i = 0;
      if (first) {
        first = false;
        if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3; // BOM: not content
      }
      for (; i < bytes.length; i++) {
        const byte = bytes[i]!;
        if (byte === 0x0a) {
          if (lineHasContent) rows++;
          lineHasContent = false;
        } else if (!lineHasContent && !isJsonSpace(byte)) {
          lineHasContent = true;
        }
      }
    }
  } catch {
    return rows + 1;
  }
  return lineHasContent ? rows + 1 : rows;
}
