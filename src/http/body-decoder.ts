import { pipeline, type Transform, Writable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';

/** The `Accept-Encoding` sent: every coding BodyDecoder reads. */
export const ACCEPTED_ENCODINGS = 'gzip, deflate, br';

type Coding = 'gzip' | 'deflate' | 'br';

const CODINGS: Readonly<Record<string, Coding>> = { gzip: 'gzip', 'x-gzip': 'gzip', deflate: 'deflate', br: 'br' };

/** More layers than any real server applies: a defence against a decompression chain bomb. */
const MAX_LAYERS = 3;

/**
 * The codings a `Content-Encoding` header lists, in the order the server applied them
 * (`identity` dropped); a string naming the problem when one cannot be decoded.
 */
export function parseContentEncoding(header: string): Coding[] | string {
  const codings: Coding[] = [];
  for (const item of header.split(',')) {
    const name = item.trim().toLowerCase();
    if (name === '' || name === 'identity') continue;
    const coding = CODINGS[name];
    if (coding === undefined)
      return `the response is encoded with "${name}", which chatbatch does not decode (it asks for ${ACCEPTED_ENCODINGS})`;
    codings.push(coding);
  }
  if (codings.length > MAX_LAYERS)
    return `the response is encoded ${codings.length} times over (${header.trim()}); chatbatch decodes at most ${MAX_LAYERS} layers`;
  return codings;
}

export type DecodeEnd = { kind: 'text'; text: string } | { kind: 'too_large' } | { kind: 'corrupt'; reason: string };

export interface DecodeListener {
  onDecoded(end: DecodeEnd): void;
}

class TooLarge extends Error {}

/**
 * Decodes a compressed body as its chunks arrive, counting the DECODED bytes against `limit`: a
 * few kilobytes that inflate to gigabytes (a gzip bomb) stop at the limit, never held whole.
 * Reports once, to `listener`, unless destroyed first.
 */
export class BodyDecoder {
  private first: Transform | null = null;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private done = false;

  constructor(
    private readonly codings: readonly Coding[],
    private readonly limit: number,
    private readonly listener: DecodeListener,
  ) {}

  write(chunk: Buffer): void {
    if (this.done) return;
    // Built on the first chunk: a "deflate" body is zlib-wrapped by the RFC, but some servers
    // send raw deflate, told apart by its first byte (as browsers and undici's fetch do).
    this.first ??= this.build(chunk[0] ?? 0);
    this.first.write(chunk);
  }

  end(): void {
    if (this.done) return;
    // No bytes at all: there was nothing to decode.
    if (this.first === null) this.report({ kind: 'text', text: '' });
    else this.first.end();
  }

  destroy(): void {
    this.done = true;
    this.first?.destroy();
  }

  private build(firstByte: number): Transform {
    // Applied in order, so undone in reverse.
    const stages = this.codings.map((coding, index) => decoderFor(coding, index === this.codings.length - 1 ? firstByte : null)).reverse();
    const collect = new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        this.size += chunk.length;
        if (this.size > this.limit) return callback(new TooLarge());
        this.chunks.push(chunk);
        callback();
      },
    });
    pipeline([...stages, collect], (error) => {
      if (error instanceof TooLarge) this.report({ kind: 'too_large' });
      else if (error) this.report({ kind: 'corrupt', reason: (error as Error).message });
      else this.report({ kind: 'text', text: Buffer.concat(this.chunks, this.size).toString('utf8') });
    });
    return stages[0]!;
  }

  private report(end: DecodeEnd): void {
    if (this.done) return;
    this.done = true;
    this.listener.onDecoded(end);
  }
}

function decoderFor(coding: Coding, firstByte: number | null): Transform {
  if (coding === 'gzip') return createGunzip();
  if (coding === 'br') return createBrotliDecompress();
  // A zlib stream starts with a CMF byte whose low nibble is 8 (deflate); raw deflate need not.
  return firstByte === null || (firstByte & 0x0f) === 0x08 ? createInflate() : createInflateRaw();
}
