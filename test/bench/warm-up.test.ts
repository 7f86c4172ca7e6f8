import { afterEach, describe, expect, it } from 'vitest';
import { warmUpSimulator } from '../../bench/warm-up.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';

let simulator: RunningSimulator | null = null;
afterEach(async () => {
  await simulator?.close();
  simulator = null;
});

describe('warmUpSimulator', () => {
  it('has every request answered, at most `concurrency` at a time, and leaves no connection open', async () => {
    simulator = await startSimulator({ host: '127.0.0.1', port: 0, latencyMs: 2 });
    const answered = await warmUpSimulator(simulator.url, { requests: 40, concurrency: 4, timeoutMs: 5_000 });
    expect(answered).toBe(40);
    const stats = simulator.stats();
    expect(stats.requests).toBe(40);
    expect(stats.maxInFlight).toBe(4);
    expect(stats.inFlight).toBe(0);
  });

  it('draws no random fault, so a fault-mix point sees the same faults as without warm-up', async () => {
    simulator = await startSimulator({ host: '127.0.0.1', port: 0, faults: { serverError: 1 } });
    expect(await warmUpSimulator(simulator.url, { requests: 10, concurrency: 2, timeoutMs: 5_000 })).toBe(10);
    expect(simulator.stats().byStatus).toEqual({ 200: 10 });
  });

  it('counts a request that gets no answer in time as not answered, and still returns', async () => {
    simulator = await startSimulator({ host: '127.0.0.1', port: 0, latencyMs: 2_000 });
    expect(await warmUpSimulator(simulator.url, { requests: 2, concurrency: 2, timeoutMs: 50 })).toBe(0);
  });
});
