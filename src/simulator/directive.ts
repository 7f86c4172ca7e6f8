import { isProviderAnswer, type ProviderAnswerName } from './provider-answers.js';

/**
 * Per-row behaviour for tests, written into a message: `[[sim:500]]` always answers 500,
 * `[[sim:429x2]]` answers 429 to the first two requests with that exact body, then normally.
 * `[[sim:json]]` answers JSON (as `response_format: json_object` does), `[[sim:json-fenced]]`
 * the same inside a ```json block with a sentence before it, `[[sim:badjson]]` a reply that
 * is not JSON.
 */
export type DirectiveKind =
  | { kind: 'status'; status: number }
  /** A provider's own answer (provider-answers.ts): `[[sim:cerebras-429]]`, `[[sim:reasoning-length]]`... */
  | { kind: 'provider'; name: ProviderAnswerName }
  | {
      kind:
        | 'reset'
        | 'hang'
        | 'html502'
        | 'quota'
        | 'okerror'
        | 'empty'
        | 'retry-after-date'
        | 'should-retry-false'
        | 'apim'
        | 'no-trace'
        | 'big'
        | 'json'
        | 'json-fenced'
        | 'badjson';
    };

export interface Directive {
  action: DirectiveKind;
  /** How many requests with the same body it applies to; Infinity for always. */
  times: number;
}

const PATTERN = /\[\[sim:([a-z0-9-]+?)(?:x(\d+))?\]\]/;
const NAMED = new Set([
  'reset',
  'hang',
  'html502',
  'quota',
  'okerror',
  'empty',
  'retry-after-date',
  'should-retry-false',
  'apim',
  'no-trace',
  'big',
  'json',
  'json-fenced',
  'badjson',
]);
/** Directives that are one-off by nature: they fire once per body unless a count says otherwise. */
const ONCE_BY_DEFAULT = new Set(['retry-after-date']);

export function findDirective(body: string): Directive | null {
  if (body.indexOf('[[sim:') === -1) return null;
  const match = PATTERN.exec(body);
  if (!match) return null;
  const [, name, count] = match;
  const times = count !== undefined ? Number(count) : ONCE_BY_DEFAULT.has(name!) ? 1 : Infinity;
  if (/^\d{3}$/.test(name!)) return { action: { kind: 'status', status: Number(name) }, times };
  if (isProviderAnswer(name!)) return { action: { kind: 'provider', name }, times };
  if (NAMED.has(name!)) return { action: { kind: name as Exclude<DirectiveKind['kind'], 'status' | 'provider'> } as DirectiveKind, times };
  return null;
}
