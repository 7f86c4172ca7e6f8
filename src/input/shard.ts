import { readUserNumber } from '../user-number.js';
import { readRowBatches } from './read-rows.js';
import { rowId } from './row-id.js';

/**
 * `--shard K/N`: this process takes only the rows whose id hashes to K, so N processes on N
 * machines (a Kubernetes Indexed Job, a CI matrix, a Slurm array) split one input with no
 * coordination and no overlap. The hash must never change between versions: shards of one job
 * may run different builds.
 */
export interface Shard {
  index: number;
  count: number;
}

/** The most shards: the id hash (32 bits) gives rows to no more. */
export const MAX_SHARDS = 2 ** 32;

export function parseShard(text: string): Shard | string {
  if (/^\s*-/.test(text)) return `--shard: K and N are counted from 0 and 1, never negative: current value is ${JSON.stringify(text)}`;
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!match) return `--shard must look like K/N (e.g. 0/4): current value is ${JSON.stringify(text)}`;
  const count = readUserNumber(match[2], { integer: true, min: 0, max: MAX_SHARDS, words: 'N' });
  if (typeof count !== 'number')
    return `--shard: N must be at most ${MAX_SHARDS} (the id hash has no more values): current value is ${JSON.stringify(text)}`;
  const index = Number(match[1]);
  if (count < 1) return `--shard: N must be at least 1: current value is ${JSON.stringify(text)}`;
  if (index >= count) return `--shard: K must be between 0 and N-1: current value is ${JSON.stringify(text)}`;
  return { index, count };
}

export function inShard(id: string, shard: Shard): boolean {
  return shard.count === 1 || shardOf(id, shard.count) === shard.index;
}

/** FNV-1a (32-bit) of the id's UTF-16 code units, modulo the shard count. */
export function shardOf(id: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % count;
}

/** A shard's rows among the inputs', and every file's rows (all shards'). */
export interface ShardRowCount {
  inShard: number;
  rowsPerFile: Map<string, number>;
}

/**
 * How many rows of `files` are this shard's (their id, as the run computes it, hashes to it),
 * and how many rows each file has in all: a shard's progress total, and the counts of a shard
 * stopped before the end of its input, whose unread rows are pending. Reads the rows as the run
 * does (ids need the fields): ~6 s a million rows, where counting lines takes 0.1 s. Never
 * throws: a file that cannot be read on counts the rows before; `stop` ends it early (null).
 */
export async function countShardRows(
  files: readonly string[],
  shard: Shard,
  idField: string | null,
  stop?: AbortSignal,
): Promise<ShardRowCount | null> {
  const rowsPerFile = new Map<string, number>();
  let inShardRows = 0;
  for (const file of files) {
    try {
      for await (const batch of readRowBatches([file])) {
        if (stop?.aborted) return null;
        for (const row of batch) {
          rowsPerFile.set(row.file, (rowsPerFile.get(row.file) ?? 0) + 1);
          if (inShard(rowId(row, idField ?? undefined), shard)) inShardRows++;
        }
      }
    } catch {
      // The run's own reader met the same problem and recorded it.
    }
  }
  return { inShard: inShardRows, rowsPerFile };
}
