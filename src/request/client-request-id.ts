import { hash } from 'node:crypto';
import type { RowTask } from './row-task.js';

/**
 * The X-Client-Request-Id a row's attempts share (each appends its number): the task's own when it
 * has one (a judge's), else one derived from the row's key, so it is stable across sessions. Derived
 * when the row is sent, not when it is read: a resume reads every row and sends few of them (a
 * sha256 per row read was ~1 s of a million-row resume).
 */
export function clientRequestIdBase(task: Pick<RowTask, 'key' | 'clientRequestIdBase'>): string {
  return task.clientRequestIdBase ?? `cb-${hash('sha256', task.key).slice(0, 16)}`;
}
