import type { RowRecord } from '../record/record.js';
import { stringOrNull } from './record-file.js';

/** The judge's verdicts (`--judge`) of one model's replies, and how they sit with the grader's. */
export interface JudgeCounts {
  model: string;
  /** Verdicts `GRADE: C` and `GRADE: I`. */
  right: number;
  wrong: number;
  /** Judge requests whose reply gave no verdict, or that failed: null, not judged. */
  unreadable: number;
  /** Replies with both a verdict and the grader's `correct`, and those where the two agree. */
  bothJudged: number;
  agree: number;
}

export interface JudgeSummary {
  /** The judge model(s) the records name. */
  judges: string[];
  byModel: JudgeCounts[];
}

/** Counts the judge's verdicts as records are read (only records with a `judge` object count). */
export class JudgeTally {
  private readonly byModel = new Map<string, JudgeCounts>();
  private readonly judges = new Set<string>();

  add(record: RowRecord): void {
    const judge = record.judge as unknown;
    if (typeof judge !== 'object' || judge === null) return;
    const { verdict, model: judgeModel } = judge as { verdict?: unknown; model?: unknown };
    this.judges.add(String(stringOrNull(judgeModel)));
    const model = String(stringOrNull(record.model));
    let counts = this.byModel.get(model);
    if (!counts) this.byModel.set(model, (counts = { model, right: 0, wrong: 0, unreadable: 0, bothJudged: 0, agree: 0 }));
    if (verdict !== true && verdict !== false) {
      counts.unreadable++;
      return;
    }
    if (verdict) counts.right++;
    else counts.wrong++;
    if (record.correct === true || record.correct === false) {
      counts.bothJudged++;
      if (record.correct === verdict) counts.agree++;
    }
  }

  /** The models in `order` first (the run's), then any other; null when no record was judged by a judge. */
  summary(order: readonly string[]): JudgeSummary | null {
    if (this.byModel.size === 0) return null;
    const models = [...new Set([...order.filter((model) => this.byModel.has(model)), ...this.byModel.keys()])];
    return { judges: [...this.judges], byModel: models.map((model) => this.byModel.get(model)!) };
  }
}
