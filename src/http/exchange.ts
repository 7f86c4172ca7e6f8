import { type Dispatcher, util } from 'undici';
import { onAbort } from '../async/on-abort.js';
import type { ClientCode } from '../record/client-codes.js';
import type { AttemptOutcome } from './attempt.js';
import { BodyDecoder, type DecodeEnd, type DecodeListener, parseContentEncoding } from './body-decoder.js';
import type { Deadline, Deadlines } from './deadlines.js';
import { failure } from './failure.js';
import { type InterpretContext, interpret } from './interpret.js';
import { redactOutcome } from './redact-outcome.js';
import { describeRequestError, type RequestTarget } from './request-error.js';

/** What every attempt of one client shares. */
export interface ExchangeSettings extends RequestTarget {
  /** The full request URL: redirects are resolved against it. */
  url: string;
  maxBodyBytes: number;
  /** What answers are read against (the params every request carries; keep bodies for `--format openai-batch`). */
  answers: InterpretContext;
  /** The client's attempts' deadlines, `timeoutMs` after each starts (one timer for them all). */
  deadlines: Deadlines;
}

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const NO_CHUNKS: Buffer[] = [];
/** The reason given to undici when we end an exchange ourselves: never seen by anyone. */
const ENDED_BY_US = new Error('attempt ended by chatbatch');

/**
 * One attempt on the wire, as an undici dispatch handler: the request's events go straight to
 * this object's methods, with no stream, promise or closure per event. Every way the attempt can
 * end settles `promise` once with an outcome; nothing is thrown. One deadline, set when the attempt
 * starts (deadlines.ts), bounds connecting, the headers and the whole body (decoding included), so a server
 * that trickles bytes cannot hold a slot forever. The outcome is redacted (redactOutcome) before
 * `promise` settles with it: nobody sees the server's raw text.
 *
 * Why undici's first handler interface (onConnect, onHeaders, onData, onComplete, onError), which
 * its types mark deprecated, rather than onRequestStart and the rest: undici 7's pools and clients
 * still call the first one, and give a handler of the second an adapter each request (an
 * UnwrapHandler with a controller, parsing the trailers too): ~0.5% of a row's CPU at no latency
 * in its own frames (a perf profile). Should a later undici stop calling these, the chat
 * client's tests (test/http) fail.
 */
export class Exchange implements Dispatcher.DispatchHandler, DecodeListener {
  readonly promise: Promise<AttemptOutcome>;
  private resolve!: (outcome: AttemptOutcome) => void;
  private status: number | null = null;
  private headers = NO_HEADERS;
  private settled = false;
  /** Ends the request on the wire (undici's, given once connected); null before, and once nothing is owed to undici. */
  private abort: ((reason?: Error) => void) | null = null;
  private chunks = NO_CHUNKS;
  private size = 0;
  private decoder: BodyDecoder | null = null;
  private readonly deadline: Deadline;
  private stopWatching: (() => void) | undefined;

  constructor(
    private readonly settings: ExchangeSettings,
    private readonly started: bigint,
    signal: AbortSignal | undefined,
  ) {
    this.promise = new Promise<AttemptOutcome>((resolve) => {
      this.resolve = resolve;
    });
    this.deadline = settings.deadlines.add(this);
    if (signal) this.stopWatching = onAbort(signal, () => this.fail('aborted', 'the request was cancelled because the run is stopping'));
  }

  onConnect(abort: (reason?: Error) => void): void {
    // Ended while it waited for a connection: it goes no further, nothing is sent.
    if (this.settled) abort(ENDED_BY_US);
    else this.abort = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    if (this.settled || statusCode < 200) return true;
    this.status = statusCode;
    this.headers = joinRepeated(util.parseHeaders(rawHeaders));
    const declared = this.headers['content-length'];
    const limit = this.settings.maxBodyBytes;
    if (declared !== undefined && Number(declared) > limit) {
      this.fail('response_too_large', `the response declared ${declared} bytes, more than the ${limit} byte limit; not read`);
      return true;
    }
    const encoding = this.headers['content-encoding'];
    if (encoding === undefined) return true;
    const codings = parseContentEncoding(encoding);
    if (typeof codings === 'string') this.fail('unsupported_encoding', codings);
    else if (codings.length > 0) this.decoder = new BodyDecoder(codings, limit, this);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.settled) return true;
    this.size += chunk.length;
    if (this.size > this.settings.maxBodyBytes) {
      this.fail('response_too_large', `the response body exceeded the ${this.settings.maxBodyBytes} byte limit and was not read further`);
      return true;
    }
    if (this.decoder) this.decoder.write(chunk);
    else if (this.chunks === NO_CHUNKS) this.chunks = [chunk];
    else this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.settled) return;
    // Cleared now: nothing is owed to undici any more, and the decoder reports through onDecoded.
    this.abort = null;
    if (this.decoder) {
      this.decoder.end();
      return;
    }
    const chunks = this.chunks;
    const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, this.size).toString('utf8');
    this.finish(interpret(this.status!, this.headers, text, this.started, this.settings.url, this.settings.answers));
  }

  onError(error: Error): void {
    if (this.settled) return;
    this.abort = null;
    const facts = describeRequestError(error, this.settings);
    const outcome = failure(this.status, facts.code, facts.message, this.headers, this.started);
    outcome.fatalForRun = facts.fatalForRun;
    // Only when no response arrived: a connection that broke mid-body proves someone was there.
    if (facts.connectionErrorCode !== undefined && this.status === null) outcome.connectionErrorCode = facts.connectionErrorCode;
    this.finish(outcome);
    this.decoder?.destroy();
  }

  onDecoded(end: DecodeEnd): void {
    if (end.kind === 'text')
      this.finish(interpret(this.status!, this.headers, end.text, this.started, this.settings.url, this.settings.answers));
    else if (end.kind === 'too_large')
      this.fail(
        'response_too_large',
        `the response body decoded to more than the ${this.settings.maxBodyBytes} byte limit and was not read further`,
      );
    else this.fail('bad_response', `the ${this.headers['content-encoding']}-encoded response body could not be decoded (${end.reason})`);
  }

  onTimeout(): void {
    const after = this.status === null ? '' : ` (status ${this.status} arrived, the body did not finish)`;
    this.fail('timeout', `no complete response within ${this.settings.timeoutMs} ms${after}`);
  }

  /** Ends the attempt as a failure and tears the exchange down (its connection is not reused). */
  private fail(code: ClientCode, message: string): void {
    if (this.settled) return;
    this.finish(failure(this.status, code, message, this.headers, this.started));
    const abort = this.abort;
    this.abort = null;
    abort?.(ENDED_BY_US);
    this.decoder?.destroy();
  }

  private finish(outcome: AttemptOutcome): void {
    if (this.settled) return;
    this.settled = true;
    this.settings.deadlines.remove(this.deadline);
    this.stopWatching?.();
    this.chunks = NO_CHUNKS;
    this.resolve(redactOutcome(outcome, this.settings.answers.redactor));
  }
}

/**
 * undici's parsed headers (names lower-cased) with repeated headers joined as one value, in
 * place: the object is this response's own.
 */
function joinRepeated(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  for (const name in headers) {
    const value = headers[name];
    if (typeof value !== 'string') headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers as Record<string, string>;
}
