import type { OneTimer } from '../async/one-timer.js';

/**
 * What the head of the queue is told when it asks to go: `go` with what it was granted, a wait
 * in ms before asking again, `answer` (ask again when an answer comes: `nudge`, no timer), or
 * `stop` (the run or the lane stops: every waiter gets null).
 */
export type GrantAnswer<Granted> = { go: Granted } | number | 'answer' | 'stop';

export interface PermitQueueOptions<Ask, Granted> {
  /** Asks once, now: takes the permit when it may go (the pace has counted it). */
  tryGrant(ask: Ask): GrantAnswer<Granted>;
  /** Aborts when the lane stops dispatching: every waiter is woken at once with null. */
  stop: AbortSignal;
  /** The one timer the queue sets (the run's clock: a test's may skip ahead), and the time it reads. */
  timer: OneTimer;
  now(): number;
  /**
   * How much later than due the head may be let go without losing any of the pace: a bucket
   * that holds more than that much refill loses nothing by a late grant (the permits that came
   * due meanwhile go together), while an even spacing (a strict limiter's) has no leeway.
   */
  leewayMs?(): number;
}

/**
 * Re-asks at least this often while the head waits: the rules that stop a run for a long wait
 * (an outage past --max-outage-ms, nothing but 429s for too long) are judged when asked, and a
 * long wait's length can change with the next answer (a probe succeeds, headers show room).
 */
const LONGEST_TIMER_MS = 1_000;

interface Waiter<Ask, Granted> {
  ask: Ask;
  resolve(granted: Granted | null): void;
}

/**
 * Requests waiting for a permit to go (the rate, the outage pause), in order: the head is asked
 * when one timer, set for the moment its permit is due, fires, and every waiter behind it it
 * lets go is let go in the same turn. A permit free now is granted at once, with no timer and no
 * promise, so a run the pace does not hold back pays nothing for it. One timer and one abort
 * listener for the whole queue, however many wait: the polling it replaces cost 64 timers and 63
 * listeners a row at 30,000 requests a minute (issue 41).
 *
 * First come, first served: a request that needs more (a large prompt's tokens) holds the ones
 * behind it back rather than being overtaken for ever.
 */
export class PermitQueue<Ask, Granted> {
  private readonly waiting: Array<Waiter<Ask, Granted>> = [];
  private head = 0;
  private armed = false;
  /** When the armed timer fires, on the run's clock. */
  private timerDue = 0;
  private readonly onStop = (): void => this.wakeAll();

  constructor(private readonly options: PermitQueueOptions<Ask, Granted>) {
    options.stop.addEventListener('abort', this.onStop, { once: true });
  }

  /** Requests waiting. */
  get length(): number {
    return this.waiting.length - this.head;
  }

  /**
   * The permit for `ask`: granted at once (a value, not a promise) when nobody waits ahead and
   * it may go now; else a promise that settles in turn; null when the lane stops first.
   */
  acquire(ask: Ask): Granted | null | Promise<Granted | null> {
    if (this.options.stop.aborted) return null;
    if (this.length === 0) {
      const answer = this.options.tryGrant(ask);
      if (answer === 'stop') return null;
      if (answer === 'answer') return this.enqueue(ask, null);
      if (typeof answer !== 'number') return answer.go;
      return this.enqueue(ask, answer);
    }
    return this.enqueue(ask, null);
  }

  /**
   * Something the head waits for may have changed (an answer came): asks again now, and sets the
   * timer earlier if the head's wait got shorter.
   */
  nudge(): void {
    if (this.length === 0) return;
    // A timer due within the leeway lets every permit due by then go together. Granted one by
    // one as answers came, the requests went one an answer, so their answers came one a turn of
    // the event loop too: twice the turns of the same run paced by its slots, and 1.4x its CPU.
    if (this.armed && this.timerDue - this.options.now() <= (this.options.leewayMs?.() ?? 0)) return;
    this.pump();
  }

  /** Stops the timer (the run is over); waiters, if any, are woken with null. */
  close(): void {
    this.options.stop.removeEventListener('abort', this.onStop);
    this.wakeAll();
  }

  private enqueue(ask: Ask, firstWait: number | null): Promise<Granted | null> {
    return new Promise((resolve) => {
      this.waiting.push({ ask, resolve });
      if (firstWait !== null) this.arm(firstWait);
    });
  }

  /** Lets go every waiter that may go now, in order; arms the timer for the first that may not. */
  private pump(): void {
    while (this.length > 0) {
      const waiter = this.waiting[this.head]!;
      const answer = this.options.tryGrant(waiter.ask);
      if (answer === 'stop') {
        this.wakeAll();
        return;
      }
      if (answer === 'answer') {
        // An answer is on its way (a probe's: its own timeout bounds it) and will nudge the queue.
        this.disarm();
        return;
      }
      if (typeof answer === 'number') {
        this.arm(answer);
        return;
      }
      this.shift().resolve(answer.go);
    }
    this.disarm();
  }

  private shift(): Waiter<Ask, Granted> {
    const waiter = this.waiting[this.head]!;
    this.waiting[this.head++] = undefined as unknown as Waiter<Ask, Granted>;
    // Compact now and then, not on every shift: Array#shift on a long queue copies it.
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
    return waiter;
  }

  /**
   * Sets the one timer for `ms` from now (or a little later, within the leeway: a wake-up of the
   * process for every request at 500 a second doubled the CPU of a paced run), unless one is
   * already set to fire no later.
   */
  private arm(ms: number): void {
    const leeway = this.options.leewayMs?.() ?? 0;
    const wait = Math.max(1, Math.min(Math.ceil(Math.max(ms, leeway)), LONGEST_TIMER_MS));
    const due = this.options.now() + wait;
    if (this.armed && this.timerDue <= due) return;
    this.armed = true;
    this.timerDue = due;
    this.options.timer.start(wait, this.fire);
  }

  private readonly fire = (): void => {
    this.armed = false;
    this.pump();
  };

  private disarm(): void {
    if (!this.armed) return;
    this.options.timer.cancel();
    this.armed = false;
  }

  private wakeAll(): void {
    this.disarm();
    while (this.length > 0) this.shift().resolve(null);
  }
}
