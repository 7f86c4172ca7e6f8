/** What a deadline ends when it passes. */
export interface Expiring {
  onTimeout(): void;
}

/** One attempt's place in the list (handed back to `remove` it). */
export interface Deadline {
  readonly at: number;
  readonly owner: Expiring;
  prev: Deadline | null;
  next: Deadline | null;
  /** Still in the list: neither removed nor expired. */
  listed: boolean;
}

/**
 * The deadlines of one client's attempts, each `ms` after it started, behind one Node timer.
 * Every attempt of a client has the same time limit, so the order attempts start in is the order
 * their deadlines pass: a list appended at its end, whose head is the next to pass. Adding and
 * removing are a few pointer moves, where a Node timer an attempt (set, then cleared when the
 * answer came: almost always) cost a timer object with its async bookkeeping and a call into
 * libuv's clock each (~1.5% of a row's CPU at no latency). The one timer is set for the head's
 * deadline; when it fires, every deadline passed by then ends its attempt and the timer is set
 * again for the new head, if any. With no attempt left the timer is cleared, so nothing holds the
 * process open.
 */
export class Deadlines {
  private head: Deadline | null = null;
  private tail: Deadline | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** When the timer is set to fire (the clock's ms); meaningless without a timer. */
  private timerAt = 0;

  constructor(
    private readonly ms: number,
    private readonly now: () => number = performanceNow,
  ) {}

  /** `owner.onTimeout()` is called once `ms` have passed, unless it is removed before. */
  add(owner: Expiring): Deadline {
    const deadline: Deadline = { at: this.now() + this.ms, owner, prev: this.tail, next: null, listed: true };
    if (this.tail) this.tail.next = deadline;
    else this.head = deadline;
    this.tail = deadline;
    // Set for the head's deadline, the next to pass (an attempt added while others expire is not the first).
    if (this.timer === null) this.arm(this.head!.at);
    return deadline;
  }

  remove(deadline: Deadline): void {
    if (!deadline.listed) return;
    this.unlink(deadline);
    // The timer stays set for a head removed before its time: it fires, finds nothing passed and
    // is set again for the head then (once a time limit at most, at a steady load).
    if (this.head === null) this.disarm();
  }

  private unlink(deadline: Deadline): void {
    deadline.listed = false;
    if (deadline.prev) deadline.prev.next = deadline.next;
    else this.head = deadline.next;
    if (deadline.next) deadline.next.prev = deadline.prev;
    else this.tail = deadline.prev;
    deadline.prev = null;
    deadline.next = null;
  }

  private arm(at: number): void {
    this.timerAt = at;
    this.timer = setTimeout(fire, Math.max(0, Math.ceil(at - this.now())), this);
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The timer fired: ends every attempt whose deadline passed, then waits for the next. */
  expire(): void {
    this.timer = null;
    const now = this.now();
    // A timer fires no earlier than asked; the clock it was set by may read a little short of it.
    const passed = Math.max(now, this.timerAt);
    for (let first = this.head; first !== null && first.at <= passed; first = this.head) {
      this.unlink(first);
      first.owner.onTimeout();
    }
    if (this.head !== null && this.timer === null) this.arm(this.head.at);
  }
}

function fire(deadlines: Deadlines): void {
  deadlines.expire();
}

function performanceNow(): number {
  return performance.now();
}
