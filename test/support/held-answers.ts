import type { ServerResponse } from 'node:http';
import type { ReceivedRequest } from './scripted-server.js';

type Answer = (request: ReceivedRequest, response: ServerResponse) => void;

/**
 * A scripted server's gate: requests whose key is allowed are answered at once, the others are
 * held until `allow` lets their key through (or `drop` forgets them: a killed session's requests,
 * never answered). Keys are what the test names rows by (a row number, a prompt).
 */
export class HeldAnswers<Key> {
  private readonly allowed = new Set<Key>();
  private waiting: Array<{ request: ReceivedRequest; response: ServerResponse }> = [];

  constructor(
    private readonly keyOf: (request: ReceivedRequest) => Key,
    private readonly answer: Answer,
  ) {}

  /** Answers `request` now if its key is allowed; else holds it. */
  offer(request: ReceivedRequest, response: ServerResponse): void {
    if (this.allowed.has(this.keyOf(request))) this.answer(request, response);
    else this.waiting.push({ request, response });
  }

  /** Lets `keys` through from now on, and answers the requests held for them. */
  allow(...keys: Key[]): void {
    for (const key of keys) this.allowed.add(key);
    const now = this.waiting.filter(({ request }) => this.allowed.has(this.keyOf(request)));
    this.waiting = this.waiting.filter((entry) => !now.includes(entry));
    for (const { request, response } of now) this.answer(request, response);
  }

  /** Forgets the requests held (never answered). */
  drop(): void {
    this.waiting = [];
  }
}
