import type { WindowBasis } from './limit-window.js';

export type LimitUnit = 'requests' | 'tokens';

/** One limit a server advertised, whatever header family said it. */
export interface AdvertisedLimit {
  unit: LimitUnit;
  /** What the window allows; null when not said. */
  limit: number | null;
  /** What is left of it now; null when not said. */
  remaining: number | null;
  /** Milliseconds until the limit is whole again (OpenAI: refilled; IETF: the window resets); null when not said. */
  resetMs: number | null;
  /** The window's length (see WindowBasis for how it is known); null when it cannot be known. */
  windowMs: number | null;
  windowBasis: WindowBasis | null;
  /** The (lower-case) header it was read from: the limit's, else the remaining's, else the reset's. */
  source: string;
}
