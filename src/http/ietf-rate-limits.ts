import type { AdvertisedLimit, LimitUnit } from './advertised-limit.js';
import { count, MOST_LIMITS_PER_ANSWER, resetFromNow } from './rate-limit-values.js';

/**
 * The IETF draft's headers (draft-ietf-httpapi-ratelimit-headers), both forms in use:
 * - structured fields (drafts 08 on): `RateLimit-Policy: "default";q=100;w=60` names each quota
 *   (q per w seconds, unit qu, default requests) and `RateLimit: "default";r=50;t=30` says what
 *   remains (r) and the seconds until it resets (t);
 * - the older trio `RateLimit-Limit: 100`, `RateLimit-Remaining: 50`, `RateLimit-Reset: 30`,
 *   with the window in `RateLimit-Policy: 100;w=60` (or in `RateLimit-Limit` itself).
 * Headers are looked up lower-cased.
 */
export function ietfLimits(headers: Readonly<Record<string, string>>, now: number): AdvertisedLimit[] {
  if (headers['ratelimit-limit'] !== undefined || headers['ratelimit-remaining'] !== undefined) return trioLimits(headers, now);
  return structuredLimits(headers);
}

function structuredLimits(headers: Readonly<Record<string, string>>): AdvertisedLimit[] {
  const policies = new Map(listItems(headers['ratelimit-policy']).map((item) => [item.name, item.params]));
  const states = new Map(listItems(headers.ratelimit).map((item) => [item.name, item.params]));
  const limits: AdvertisedLimit[] = [];
  for (const name of new Set([...policies.keys(), ...states.keys()])) {
    const policy = policies.get(name) ?? {};
    const state = states.get(name) ?? {};
    const unit = quotaUnit(policy.qu);
    if (!unit) continue;
    const limit = count(policy.q);
    const remaining = count(state.r);
    const reset = count(state.t);
    const window = count(policy.w);
    if (limit === null && remaining === null) continue;
    limits.push({
      unit,
      limit,
      remaining,
      resetMs: reset === null ? null : reset * 1000,
      windowMs: window ? window * 1000 : null,
      windowBasis: window ? 'named' : null,
      // Each policy is a limit of its own: named by the policy, whether this answer said its state or not.
      source: `ratelimit-policy "${shownName(name)}"`,
    });
  }
  return limits;
}

function trioLimits(headers: Readonly<Record<string, string>>, now: number): AdvertisedLimit[] {
  const stated = listItems(headers['ratelimit-limit']);
  const limit = count(stated[0]?.name);
  const remaining = count(headers['ratelimit-remaining']);
  if (limit === null && remaining === null) return [];
  // The window: given beside this quota in the limit itself (early drafts: `100, 100;window=60`)
  // or in the policy (`100;w=60`).
  const policies = [...stated, ...listItems(headers['ratelimit-policy'])].filter((item) => count(item.name) === limit);
  const window = count(policies.map((item) => item.params.w ?? item.params.window).find((value) => value !== undefined));
  return [
    {
      unit: 'requests',
      limit,
      remaining,
      resetMs: resetFromNow(headers['ratelimit-reset'], now),
      windowMs: window ? window * 1000 : null,
      windowBasis: window ? 'named' : null,
      source: limit !== null ? 'ratelimit-limit' : 'ratelimit-remaining',
    },
  ];
}

/** The quota unit `qu` names; null for units that are not a pace of requests or tokens (bytes, concurrency). */
function quotaUnit(qu: string | undefined): LimitUnit | null {
  if (qu === undefined || qu === 'requests') return 'requests';
  return qu === 'tokens' ? 'tokens' : null;
}

interface ListItem {
  name: string;
  params: Record<string, string>;
}

/** A structured-field list, leniently: `"a";q=1;w=2, "b";q=3` → items with unquoted names and parameters. */
function listItems(value: string | undefined): ListItem[] {
  if (value === undefined) return [];
  const items = (value.match(/(?:[^,"]|"(?:[^"\\]|\\.)*")+/g) ?? []).slice(0, MOST_LIMITS_PER_ANSWER);
  return items.map((item) => {
    const [name = '', ...params] = item.split(';').map((part) => part.trim());
    const entries = params.map((param) => {
      const at = param.indexOf('=');
      return at < 0 ? [param, '1'] : [param.slice(0, at).trim(), unquote(param.slice(at + 1).trim())];
    });
    return { name: unquote(name), params: Object.fromEntries(entries) as Record<string, string> };
  });
}

/** A policy's name as the manifest and the progress line show it: short, and nothing a terminal would act on. */
function shownName(name: string): string {
  return name.replace(/[^\w.-]/g, '').slice(0, 32);
}

function unquote(text: string): string {
  return /^".*"$/.test(text) ? text.slice(1, -1).replace(/\\(.)/g, '$1') : text;
}
