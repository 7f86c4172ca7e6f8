/**
 * Empties `set` only when it holds something. V8's `Set.prototype.clear` allocates a new hash
 * table every time, even for an empty set, and leaves the old table pointing to the new one (for
 * iterators still walking it). Called once a row, as the watches do on every success, that made a
 * chain of tables: once a full collection promoted one dead table, it kept the next alive
 * through the young collections until it was promoted too, and so on, so every row left ~80
 * bytes of garbage in the old generation a set (issue 44: memory flat in rows).
 */
export function clearSet(set: Set<unknown>): void {
  if (set.size > 0) set.clear();
}
