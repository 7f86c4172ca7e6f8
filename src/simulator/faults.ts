import type { DirectiveKind } from './directive.js';
import type { FaultRates } from './options.js';

type Fault = keyof FaultRates;

const FAULT_ORDER: readonly Fault[] = [
  'rateLimit',
  'quota',
  'serverError',
  'htmlBadGateway',
  'reset',
  'hang',
  'okWithError',
  'emptyChoices',
];

const FAULT_ACTIONS: Record<Fault, DirectiveKind> = {
  rateLimit: { kind: 'status', status: 429 },
  quota: { kind: 'quota' },
  serverError: { kind: 'status', status: 500 },
  htmlBadGateway: { kind: 'html502' },
  reset: { kind: 'reset' },
  hang: { kind: 'hang' },
  okWithError: { kind: 'okerror' },
  emptyChoices: { kind: 'empty' },
};

/** Random faults at the given rates: each request draws one number, so the shares add up. */
export function faultDrawer(rates: Partial<FaultRates> | undefined, random: () => number): () => DirectiveKind | null {
  const faults = FAULT_ORDER.map((name) => [name, rates?.[name] ?? 0] as const).filter(([, rate]) => rate > 0);
  return () => {
    if (faults.length === 0) return null;
    let draw = random();
    for (const [fault, rate] of faults) {
      if (draw < rate) return FAULT_ACTIONS[fault];
      draw -= rate;
    }
    return null;
  };
}
