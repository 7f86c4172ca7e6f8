import type { BodyFields } from './row-params.js';

export const ROW_PARAMS_HINT =
  '--row-params (job: "row_params": true) sends them as given (stream, tools and function calling stay refused)';

type Found = Extract<BodyFields, { ok: true }>;

/**
 * Counts what OpenAI Batch lines ask for that the run does not do: body fields not sent (no
 * `--row-params`) and a `body.model` other than the run's. A run says the first once, at the
 * first such row, and the second at its end; --dry-run and validate say both with the counts.
 */
export class BatchNotes {
  /** Rows per field not sent, in order of first appearance. */
  readonly unsent = new Map<string, number>();
  rowsWithUnsent = 0;
  otherModelRows = 0;
  /** Rows per other model name, at most MAX_MODELS_NAMED names. */
  private readonly otherModels = new Map<string, number>();
  private firstOtherModel: string | null = null;

  constructor(
    /** The models the run sends to; null when not known (validate of a job without one). */
    private readonly runModels: readonly string[] | null,
    /** Called once, at the first row with fields not sent. */
    private readonly onFirstUnsent: (notice: string) => void = () => {},
  ) {}

  add(where: { file: string; line: number }, found: Found): void {
    if (found.unsent.length > 0) {
      if (this.rowsWithUnsent === 0) {
        this.onFirstUnsent(
          `${where.file}:${where.line}: OpenAI Batch body fields not sent: ${found.unsent.join(', ')}; only model and messages are sent unless you opt in: ${ROW_PARAMS_HINT} (--dry-run lists every such field)`,
        );
      }
      this.rowsWithUnsent++;
      for (const field of found.unsent) this.unsent.set(field, (this.unsent.get(field) ?? 0) + 1);
    }
    if (found.model !== null && this.runModels !== null && !this.runModels.includes(found.model)) {
      this.otherModelRows++;
      this.firstOtherModel ??= `${where.file}:${where.line}`;
      if (this.otherModels.has(found.model) || this.otherModels.size < MAX_MODELS_NAMED) {
        this.otherModels.set(found.model, (this.otherModels.get(found.model) ?? 0) + 1);
      }
    }
  }

  /** The fields not sent, with their row counts: a line for --dry-run and validate, or null. */
  unsentNotice(): string | null {
    if (this.rowsWithUnsent === 0) return null;
    const fields = [...this.unsent].map(([field, rows]) => `${field} (${rows})`).join(', ');
    return `${this.rowsWithUnsent} row(s) carry OpenAI Batch body fields that are not sent: ${fields}; only model and messages are sent unless you opt in: ${ROW_PARAMS_HINT}`;
  }

  /** Rows naming another model, or null. */
  otherModelNotice(): string | null {
    if (this.otherModelRows === 0) return null;
    const named = [...this.otherModels].map(([model, rows]) => `${JSON.stringify(model)} (${rows})`);
    const more = this.otherModelRows - [...this.otherModels.values()].reduce((sum, rows) => sum + rows, 0);
    return (
      `${this.otherModelRows} row(s) name another model in body.model: ${named.join(', ')}${more > 0 ? `, ${more} more` : ''} (first at ${this.firstOtherModel}); ` +
      `every row is sent to the run's ${this.runModels!.length > 1 ? 'models' : 'model'} ${this.runModels!.map((model) => JSON.stringify(model)).join(', ')} (--model or the job's "model")`
    );
  }
}

const MAX_MODELS_NAMED = 3;
