/**
 * How often a running session writes its manifest: its attempts and token usage so far. A
 * session killed with `kill -9` then leaves at most this much of its usage unrecorded, so a
 * resume's token budget still counts what the killed session paid for.
 */
export const CHECKPOINT_EVERY_MS = 2000;

/** Writes the manifest every `everyMs` while something in it changed; stop() waits for a write under way. */
export class ManifestCheckpoints {
  private readonly timer: NodeJS.Timeout;
  private writing: Promise<void> | null = null;
  private lastWritten: string;
  private stopped = false;

  constructor(
    private readonly state: () => string,
    private readonly write: () => Promise<void>,
    everyMs = CHECKPOINT_EVERY_MS,
  ) {
    this.lastWritten = state();
    this.timer = setInterval(() => this.tick(), everyMs);
    this.timer.unref();
  }

  /** Writes at once what changed (the job's fingerprint, once known), unless stopped or a write is under way. */
  writeNow(): void {
    this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.writing;
  }

  private tick(): void {
    const now = this.state();
    if (this.stopped || this.writing || now === this.lastWritten) return;
    this.lastWritten = now;
    // A disk that refuses shows itself in the journal, which stops the run; a checkpoint is only a help.
    this.writing = this.write()
      .catch(() => {})
      .finally(() => {
        this.writing = null;
      });
  }
}
