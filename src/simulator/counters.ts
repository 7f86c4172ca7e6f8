export interface SimulatorStats {
  requests: number;
  inFlight: number;
  maxInFlight: number;
  /** Requests in flight on average, weighted by time, from the first request to the last answer. */
  meanInFlight: number;
  byStatus: Record<string, number>;
}

/** What the simulator saw: requests, answers by status, and how many it held at once. */
export class Counters {
  private stats: SimulatorStats = { requests: 0, inFlight: 0, maxInFlight: 0, meanInFlight: 0, byStatus: {} };
  private readonly load = new InFlightIntegral();

  arrive(): void {
    this.stats.requests++;
    this.load.change(this.stats.inFlight, performance.now());
    this.stats.inFlight++;
    if (this.stats.inFlight > this.stats.maxInFlight) this.stats.maxInFlight = this.stats.inFlight;
  }

  leave(): void {
    this.load.change(this.stats.inFlight, performance.now());
    this.stats.inFlight--;
  }

  count(key: string | number): void {
    this.stats.byStatus[key] = (this.stats.byStatus[key] ?? 0) + 1;
  }

  snapshot(): SimulatorStats {
    return { ...this.stats, meanInFlight: this.load.mean(), byStatus: { ...this.stats.byStatus } };
  }

  /** Starts counting afresh; requests still in flight stay counted as in flight. */
  reset(): void {
    this.load.reset();
    const inFlight = this.stats.inFlight;
    this.stats = { requests: 0, inFlight, maxInFlight: inFlight, meanInFlight: 0, byStatus: {} };
  }
}

/** The time integral of the in-flight count, for the mean number of requests the server held. */
class InFlightIntegral {
  private area = 0;
  private firstAt: number | null = null;
  private lastAt = 0;

  /** Called just before the count changes from `count`. */
  change(count: number, at: number): void {
    if (this.firstAt === null) this.firstAt = at;
    else this.area += count * (at - this.lastAt);
    this.lastAt = at;
  }

  mean(): number {
    const span = this.firstAt === null ? 0 : this.lastAt - this.firstAt;
    return span > 0 ? this.area / span : 0;
  }

  reset(): void {
    this.area = 0;
    this.firstAt = null;
  }
}
