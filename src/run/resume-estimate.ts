import { stat } from 'node:fs/promises';
import type { RunConfig } from '../job/config.js';
import type { Manifest } from '../output/manifest.js';
import type { ChatRequest } from '../request/chat-request.js';
import { forTarget, type PreparedRow } from '../request/prepare.js';
import { keyModelOf, sampleIndexes } from '../request/samples.js';
import { isFsError } from '../state/fs-problem.js';
import { outDirPaths } from '../state/out-dir.js';
import { loadPreviousResults, type PreviousResults } from '../state/previous-results.js';
import { reusable } from './resume-rules.js';

/** A valid row as the dry run reads it. */
type TaskRow = Extract<PreparedRow, { kind: 'task' }>;

/**
 * Which copies of a row (a model's, a sample's) a run would send: every one, or on `--resume`
 * those the earlier sessions did not settle for good (resume-rules.ts `reusable`: a failure
 * `--retry-failed` names, a request changed since, a row never settled), so `--dry-run --resume`
 * estimates what the resume would send, not the whole input again. A reply that failed the
 * reply format is counted as sent, though the resume may find it passes now (an upper bound).
 */
export class CopiesToSend {
  /** Copies the earlier sessions settled that a resume keeps as they are. */
  kept = 0;

  private constructor(
    private readonly config: Pick<RunConfig, 'models' | 'repeat' | 'retryFailed'>,
    private readonly previous: PreviousResults | null,
    private readonly keyModel: string,
  ) {}

  /** For `config`; on --resume, the earlier sessions' results read from its output directory (nothing is written). */
  static async open(config: RunConfig, earlier: Manifest | null): Promise<CopiesToSend> {
    const keyModel = keyModelOf(config.models, earlier);
    if (!config.resume || !config.outDir || !earlier) return new CopiesToSend(config, null, keyModel);
    const paths = outDirPaths(config.outDir);
    // No journal, or not a file (a FIFO would hold the read forever; the resume refuses it): every copy is counted as sent.
    const journal = await stat(paths.journal).catch((error: unknown) => {
      if (isFsError(error) && error.code === 'ENOENT') return null;
      throw error;
    });
    if (!journal?.isFile()) return new CopiesToSend(config, null, keyModel);
    return new CopiesToSend(config, await loadPreviousResults(paths, { readOnly: true }), keyModel);
  }

  /** Whether the estimate is of a resume: what it sends, beside what it keeps. */
  get resuming(): boolean {
    return this.previous !== null;
  }

  /** Each copy of `row` a run would send: its model's index and its request. */
  *of(row: TaskRow): Generator<{ modelIndex: number; request: ChatRequest }> {
    const { models } = this.config;
    for (let modelIndex = 0; modelIndex < models.length; modelIndex++) {
      for (const sample of sampleIndexes(this.config.repeat)) {
        if (this.previous === null) {
          yield { modelIndex, request: row.requests[modelIndex]! };
          continue;
        }
        const copy = forTarget(row, { models, modelIndex, sample, keyModel: this.keyModel }, -1) as TaskRow;
        const earlier = this.previous.byKey.get(copy.key);
        if (earlier && reusable(earlier, copy.fingerprint, this.config)) this.kept++;
        else yield { modelIndex, request: copy.task.request };
      }
    }
  }

  close(): void {
    this.previous?.byKey.close();
  }
}
