import type { ServerResponse } from 'node:http';
import type { Counters } from './counters.js';
import type { DirectiveKind } from './directive.js';
import type { SimulatorOptions } from './options.js';
import type { ProviderLimits } from './provider-limits.js';
import type { SimMessage } from './reply.js';

/** What a running simulator keeps between requests. */
export interface SimContext {
  readonly options: SimulatorOptions;
  readonly random: () => number;
  readonly counters: Counters;
  /** Answers held open on purpose ([[sim:hang]]), destroyed on close. */
  readonly hanging: Set<ServerResponse>;
  /** How many times each body with a counted directive ([[sim:429x2]]) was seen. */
  readonly directiveCounts: Map<string, number>;
  readonly drawFault: () => DirectiveKind | null;
  readonly retryAfterMs: number;
  /** The rpm/tpm/in-flight limits when any is set, else null. */
  readonly limits: ProviderLimits | null;
  /** Each model's own limits (SimulatorOptions.modelLimits), by model name. */
  readonly modelLimits: ReadonlyMap<string, ProviderLimits>;
  /** Milliseconds since the epoch (Date.now unless a test injects one). */
  readonly clock: () => number;
  sequence: number;
}

/** One valid chat request being answered. */
export interface Exchange {
  readonly res: ServerResponse;
  readonly requestId: string;
  /** The request's number, 1 for the first: the completion's id. */
  readonly n: number;
  readonly messages: SimMessage[];
  readonly model: string;
  /** The request body as received. */
  readonly body: string;
  /** The reply choice 0 carries unless a directive says otherwise. */
  readonly reply: string;
  /** How many choices the request asked for (`n`). */
  readonly choices: number;
}
