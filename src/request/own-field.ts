/**
 * A field the row itself holds, never one inherited from Object.prototype: `row.constructor`,
 * `row.toString` or `row.__proto__` exist on every object, and filled into a request they sent
 * "undefined" or "{}" for a row that has no such field.
 */
export function ownField(fields: object, name: string): unknown {
  return Object.hasOwn(fields, name) ? (fields as Record<string, unknown>)[name] : undefined;
}
