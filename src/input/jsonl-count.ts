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
      // From newline to newline (memchr); only a line's leading spaces are looked at byte by byte.
      for (let start = i; ; ) {
        const newline = bytes.indexOf(0x0a, start);
        const end = newline === -1 ? bytes.length : newline;
        for (let j = start; !lineHasContent && j < end; j++) lineHasContent = !isJsonSpace(bytes[j]!);
        if (newline === -1) break;
        if (lineHasContent) rows++;
        lineHasContent = false;
        start = newline + 1;
      }
    }
  } catch {
    return rows + 1;
  }
  return lineHasContent ? rows + 1 : rows;
}
