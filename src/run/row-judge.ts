import { headersIdentity } from '../job/headers.js';
import { judgeMessages } from '../judge/judge-prompt.js';
import { withJudge, withoutJudge } from '../judge/judged-record.js';
import type { RunJudge } from '../judge/run-judge.js';
import type { RowPaid, TokenAccount } from '../pace/token-account.js';
import type { RowRecord } from '../record/record.js';
import type { ReferenceAnswer } from '../reply/reference-answer.js';
import { buildChatRequest } from '../request/chat-request.js';
import { clientRequestIdBase } from '../request/client-request-id.js';
import type { RowTask } from '../request/row-task.js';
import type { OpenedRun } from './open-run.js';
import { processRow, type RowServices } from './process-row.js';

/** The key a row's judge request is journaled and cached under: the row's, and a mark no row key has. */
const JUDGE_KEY = '\u0000judge';

/**
 * The journal's fingerprint of a row's record whose reply is in but whose judge has not answered:
 * the row's own, marked. A resume reads it as "judge this record" (src/run/judge-earlier.ts), so
 * a reply paid for is never sent again for want of its verdict; without --judge it is kept as it is.
 */
export function awaitingJudge(fingerprint: string): string {
  return `${fingerprint}+judge`;
}

/**
 * `--judge`: one request per judged row, after its reply settles, through the judge's own lane
 * (its pacer: concurrency, the limits it learns, its 429s and outages, its token book priced
 * apart), with the row's retry rules and the run's cache; the same path as a row's (processRow).
 */
export class RowJudge {
  constructor(
    private readonly run: OpenedRun,
    private readonly judge: RunJudge,
    /** The judge lane's token book: its budget refusal stops the run's new rows too. */
    private readonly tokens: TokenAccount,
    private readonly services: Omit<RowServices, 'settle'>,
  ) {}

  /** Whether the record gets a judge request: a reply, and a reference to judge it by. */
  wants(record: RowRecord, reference: ReferenceAnswer | undefined): boolean {
    return record.code === null && typeof record.reply === 'string' && reference !== undefined && reference !== null;
  }

  /** The record as it is written when no judge request is made for it. */
  unjudged(record: RowRecord): RowRecord {
    return withoutJudge(record);
  }

  /**
   * The record with the judge's verdict, and what the judge's answers cost (not counted yet);
   * null when the judge request is left pending (the run stops, or a budget refused it: the row
   * is judged on --resume).
   */
  async verdictOn(task: RowTask, record: RowRecord): Promise<{ record: RowRecord; paid: RowPaid | null } | null> {
    const request = this.requestFor(task, record);
    if (!request.ok) return { record: withJudge(record, this.judge.model, problemRecord(task, record, request.problem)), paid: null };
    const judgeTask: RowTask = {
      position: task.position,
      key: `${task.key}${JUDGE_KEY}`,
      id: task.id,
      file: task.file,
      line: task.line,
      model: this.judge.model,
      sample: task.sample,
      request: request.request,
      clientRequestIdBase: `${clientRequestIdBase(task)}-judge`,
    };
    let answer: RowRecord | null = null;
    const settled = await processRow(judgeTask, {
      ...this.services,
      settle: async (_task, judged) => {
        answer = judged;
      },
    });
    if (!settled || answer === null) {
      const by = this.tokens.limitReachedBy;
      if (by) this.run.tokens.stopNewRows(by);
      return null;
    }
    // What the judge's answers cost goes with the judged record's journal line (Sending.settle).
    return { record: withJudge(record, this.judge.model, answer), paid: this.tokens.takeUnpaid(request.request) };
  }

  private requestFor(task: RowTask, record: RowRecord) {
    const reference = task.reference!;
    const messages = judgeMessages(this.judge.template, {
      question: lastUserMessage(task.request.body),
      expected: typeof reference.value === 'string' ? reference.value : JSON.stringify(reference.value),
      reply: record.reply!,
      ...(task.input ? { fields: task.input } : {}),
    });
    if (!messages.ok) return messages;
    const { config } = this.run;
    const request = buildChatRequest(messages.messages, {
      baseUrl: config.baseUrl,
      model: this.judge.model,
      params: {},
      headers: headersIdentity(config.headers),
    });
    return { ok: true as const, request };
  }
}

/** The row's prompt as sent: its last user message (what the rubric calls the question). */
function lastUserMessage(body: string): string {
  const { messages } = JSON.parse(body) as { messages: Array<{ role: string; content: unknown }> };
  const last = messages.findLast((message) => message.role === 'user');
  return typeof last?.content === 'string' ? last.content : '';
}

/** A judge request that could not be made (the template names a field this row lacks): no verdict. */
function problemRecord(task: RowTask, record: RowRecord, problem: string): RowRecord {
  return { ...record, id: task.id, reply: null, status: null, code: 'invalid_input', message: problem, trace_id: null, attempts: 0 };
}
