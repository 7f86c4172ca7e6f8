/**
 * `--keep-input` / `keep_input`: which of a row's own fields its record carries as `input`, so
 * the output is the dataset (no join back to the inputs by id).
 */
export type KeepInput = 'all' | readonly string[] | null;

/**
 * The setting as given: the flag's text (`''` or `all`: every field; `a,b`: those) or the job
 * file's `"all"` or list; null or undefined: none.
 */
export function keepInputOf(value: string | readonly string[] | null | undefined): KeepInput {
  if (value === null || value === undefined) return null;
  const names = typeof value === 'string' ? value.split(',').map((name) => name.trim()) : value;
  const named = names.filter((name) => name !== '');
  return named.length === 0 || named.includes('all') ? 'all' : named;
}

/** The fields a record keeps, in the row's order (named fields the row lacks are left out); undefined for none. */
export function keptFields(fields: Readonly<Record<string, unknown>> | undefined, keep: KeepInput): Record<string, unknown> | undefined {
  if (keep === null || fields === undefined) return undefined;
  if (keep === 'all') return { ...fields };
  // fromEntries defines own properties: a field named __proto__ stays a field.
  return Object.fromEntries(keep.filter((name) => Object.hasOwn(fields, name)).map((name) => [name, fields[name]]));
}
