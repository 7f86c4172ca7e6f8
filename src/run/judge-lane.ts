import { type LaneShared, ModelLane } from './model-lanes.js';
import type { OpenedRun } from './open-run.js';
import type { RowServices } from './process-row.js';
import { RowJudge } from './row-judge.js';

/**
 * With --judge, the judge's lane: a lane like a model's (its concurrency, the limits it learns
 * from its answers, its 429 backoff and outage pause), whose requests count in the judge's own
 * token book (priced apart, inside --max-cost). A refusal of the judge (an unknown judge model, a
 * key it may not use) stops the run: no row could be judged. Null without --judge.
 */
export function judgeOf(
  run: OpenedRun,
  shared: LaneShared,
  rowServices: Omit<RowServices, 'pacer' | 'settle'>,
): { lane: ModelLane; rows: RowJudge } | null {
  if (!run.judge) return null;
  const lane = new ModelLane(run.judge.setup.model, { ...shared, tokens: run.judge.tokens }, false);
  // The judge's replies are read for their grade, not checked as the rows' are.
  const rows = new RowJudge(run, run.judge.setup, run.judge.tokens, { ...rowServices, pacer: lane.pacer, replyCheck: null });
  return { lane, rows };
}
