import type { FaultRates } from '../src/simulator/server.js';
import type { InputFormat } from './generate-inputs.js';
import type { ProviderLimits } from './sim-control.js';

export interface BenchPoint {
  name: string;
  rows: number;
  format: InputFormat;
  concurrency: number;
  latencyMs: number;
  timeoutMs: number;
  faults?: Partial<FaultRates>;
  retryAfterMs?: number;
  /** The limits of the provider the simulator plays (requests and tokens a minute, 429s past them). */
  provider?: ProviderLimits;
  /** Requests sent to the point's fresh simulator before the client starts (see warm-up.ts). */
  warmUpRequests: number;
}

/** rate-limit 0.05 (retry-after 1 s), server-error 0.05, html-502 0.02, reset 0.01, hang 0.005. */
export const FAULT_MIX: Partial<FaultRates> = { rateLimit: 0.05, serverError: 0.05, htmlBadGateway: 0.02, reset: 0.01, hang: 0.005 };

export const FAULT_FREE_NAME = 'c64-l50';
export const FAULT_MIX_NAME = 'c64-l50-faults';

export function benchPoints(quick: boolean): BenchPoint[] {
  const size = (full: number, small: number): number => (quick ? small : full);
  const warmUpRequests = size(3_000, 300);
  const steady = { format: 'jsonl' as const, timeoutMs: 30_000, warmUpRequests };
  return [
    // Not a throughput figure: what one tiny run costs (Node start, reading, manifest), to read the others by.
    { name: 'startup (1 row)', rows: 1, concurrency: 1, latencyMs: 0, ...steady },
    { name: 'c256-l50', rows: size(50_000, 2_000), concurrency: 256, latencyMs: 50, ...steady },
    { name: 'c64-l20', rows: size(50_000, 2_000), concurrency: 64, latencyMs: 20, ...steady },
    { name: 'c64-l0 (ceiling)', rows: size(50_000, 5_000), concurrency: 64, latencyMs: 0, ...steady },
    { name: FAULT_FREE_NAME, rows: size(30_000, 1_000), concurrency: 64, latencyMs: 50, ...steady },
    {
      name: FAULT_MIX_NAME,
      rows: size(30_000, 1_000),
      concurrency: 64,
      latencyMs: 50,
      format: 'jsonl',
      timeoutMs: 2_000,
      faults: FAULT_MIX,
      retryAfterMs: 1000,
      warmUpRequests,
    },
    // Memory against input size, at a common concurrency. (Node's HTTP client alone, with no
    // chatbatch code, peaks near 91 MB at C=256 and L=0, against 85 MB at C=64 and 69 MB at C=16.)
    { name: 'mem-jsonl-small', rows: size(100_000, 10_000), concurrency: 64, latencyMs: 0, ...steady },
    { name: 'mem-jsonl-large', rows: size(1_000_000, 100_000), concurrency: 64, latencyMs: 0, ...steady },
    { name: 'mem-csv-small', rows: size(100_000, 10_000), concurrency: 64, latencyMs: 0, format: 'csv', timeoutMs: 30_000, warmUpRequests },
    {
      name: 'mem-csv-large',
      rows: size(1_000_000, 100_000),
      concurrency: 64,
      latencyMs: 0,
      format: 'csv',
      timeoutMs: 30_000,
      warmUpRequests,
    },
    // Parquet against the same rows as JSONL (mem-jsonl-*): the reader holds a data page of each column at a time.
    {
      name: 'mem-parquet-small',
      rows: size(100_000, 10_000),
      concurrency: 64,
      latencyMs: 0,
      format: 'parquet',
      timeoutMs: 30_000,
      warmUpRequests,
    },
    {
      name: 'mem-parquet-large',
      rows: size(1_000_000, 100_000),
      concurrency: 64,
      latencyMs: 0,
      format: 'parquet',
      timeoutMs: 30_000,
      warmUpRequests,
    },
  ];
}

/** A point of the side-by-side comparison (`npm run bench`): every client runs it once a round. */
export interface ComparePoint {
  name: string;
  rows: number;
  concurrency: number;
  latencyMs: number;
  timeoutMs: number;
  warmUpRequests: number;
}

export const COMPARE_THROUGHPUT_NAME = 'c256-l50';
export const COMPARE_CPU_NAME = 'c64-l0';

export function comparePoints(quick: boolean): ComparePoint[] {
  const size = (full: number, small: number): number => (quick ? small : full);
  const common = { timeoutMs: 30_000, warmUpRequests: size(3_000, 300) };
  return [
    // Throughput when latency dominates.
    { name: COMPARE_THROUGHPUT_NAME, rows: size(30_000, 2_000), concurrency: 256, latencyMs: 50, ...common },
    // Client CPU per row when it does not: the server answers at once.
    { name: COMPARE_CPU_NAME, rows: size(50_000, 5_000), concurrency: 64, latencyMs: 0, ...common },
  ];
}
