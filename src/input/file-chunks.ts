import { open } from 'node:fs/promises';

/**
 * Reads a file front to back through one reused buffer. Each chunk is a view of that buffer,
 * valid until the next one is asked for. A whole-file pass (counting rows, hashing) then
 * allocates nothing per chunk: reading a large input in fresh 1 MiB chunks piled up tens of MB
 * of buffers waiting for the GC.
 */
export async function* fileChunks(file: string, chunkBytes = 1 << 18): AsyncGenerator<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(chunkBytes);
    for (let position = 0; ; ) {
      const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
      if (bytesRead === 0) return;
      position += bytesRead;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}
