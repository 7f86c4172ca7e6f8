import { sourceTextOf } from '../input/source-text.js';
import { ownField } from './own-field.js';

/** `{{name}}` placeholders, filled from a row's fields. Whitespace inside the braces is allowed. */
export const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;

/**
 * Deepest nesting of a list or object filled into a template as JSON. JSON.stringify recurses
 * once per level: a value nested 100,000 deep (which JSON.parse reads without trouble) overflowed
 * the stack and crashed the run.
 */
export const MAX_TEMPLATE_VALUE_DEPTH = 64;
/** Longest filled template, in characters: a placeholder repeated over a large value must not build a string past V8's limit. */
export const MAX_FILLED_TEMPLATE_CHARS = 16 * 1024 * 1024;

export type TemplateResult = { ok: true; text: string } | { ok: false; problem: string };

/**
 * Fills each `{{name}}` with the row's own field `name`: a string as it is, a number or boolean
 * as written, a list or object as compact JSON (at most MAX_TEMPLATE_VALUE_DEPTH levels deep).
 * A field the row does not have, or holds as null, is a problem; so is a value nested too deep.
 */
export function fillTemplate(template: string, fields: Readonly<Record<string, unknown>>): TemplateResult {
  const missing = new Set<string>();
  const nulls = new Set<string>();
  const tooDeep = new Set<string>();
  let length = template.length;
  const text = template.replace(PLACEHOLDER, (_whole, name: string) => {
    const value = ownField(fields, name);
    if (value === undefined || value === null) {
      (value === null ? nulls : missing).add(name);
      return '';
    }
    if (length > MAX_FILLED_TEMPLATE_CHARS) return '';
    const rendered = renderValue(value);
    if (rendered === null) {
      tooDeep.add(name);
      return '';
    }
    // A number (or a list or object holding one) as the row wrote it: 1e21, not 1e+21.
    const written = typeof value === 'string' ? rendered : (sourceTextOf(fields, name) ?? rendered);
    length += written.length;
    return written;
  });
  if (missing.size > 0 || nulls.size > 0) {
    const problems = [];
    if (missing.size > 0) problems.push(`template variable ${placeholders(missing)} missing from the row`);
    // Said apart: a null column (Parquet, CSV-less JSONL) is not a misspelt placeholder.
    if (nulls.size > 0) problems.push(`template variable ${placeholders(nulls)} null in the row`);
    return { ok: false, problem: problems.join('; ') };
  }
  if (tooDeep.size > 0) {
    return {
      ok: false,
      problem: `template variable ${placeholders(tooDeep)} holds a list or object nested more than ${MAX_TEMPLATE_VALUE_DEPTH} levels deep`,
    };
  }
  if (length > MAX_FILLED_TEMPLATE_CHARS)
    return { ok: false, problem: `the filled template is longer than ${MAX_FILLED_TEMPLATE_CHARS} characters` };
  return { ok: true, text };
}

function placeholders(names: ReadonlySet<string>): string {
  return [...names].map((name) => `{{${name}}}`).join(', ');
}

/** The value's text, or null when it is nested too deep to write as JSON safely. */
function renderValue(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return String(value);
  return nestedDeeperThan(value, MAX_TEMPLATE_VALUE_DEPTH) ? null : JSON.stringify(value);
}

/** Walks the value with a stack of its own (not the call stack), so any depth is safe to measure. */
export function nestedDeeperThan(value: object, limit: number): boolean {
  const pending: Array<{ value: object; depth: number }> = [{ value, depth: 1 }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if (item.depth > limit) return true;
    for (const child of Array.isArray(item.value) ? item.value : Object.values(item.value)) {
      if (typeof child === 'object' && child !== null) pending.push({ value: child as object, depth: item.depth + 1 });
    }
  }
  return false;
}
