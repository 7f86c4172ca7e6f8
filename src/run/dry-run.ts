import { expandInputs } from '../input/expand.js';
import { preflightInputs } from '../input/preflight.js';
import { readRows } from '../input/read-rows.js';
import { rowId, SeenIds } from '../input/row-id.js';
import type { RunConfig } from '../job/config.js';
import { buildChatRequest } from '../request/chat-request.js';
import { rowToMessages } from '../request/messages.js';
import { inShard } from '../input/shard.js';
import { runOwnDirs } from './own-dirs.js';

export interface InvalidRowNote {
  file: string;
  line: number;
  id: string;
  problem: string;
}

export interface DryRunReport {
  files: string[];
  rows: number;
  valid: number;
  invalid: InvalidRowNote[];
  invalidCount: number;
  /** Requests a run would send at first try: the valid rows times `repeat`. */
  requests: number;
  firstRequestBody: string | null;
  estimatedPromptTokens: number;
  /** Lower bound on wall time: by concurrency at the assumed latency, and by rpm/tpm budgets. */
  estimatedSeconds: number;
  assumedLatencyMs: number;
}

/** Reads and checks every row (of this shard, with --shard) and builds every request, sending nothing. */
export async function dryRun(config: RunConfig, options: { maxListed: number; assumedLatencyMs: number }): Promise<DryRunReport> {
  const files = await expandInputs(config.inputs, process.cwd(), { exclude: runOwnDirs(config) });
  await preflightInputs(files);
  const seen = new SeenIds();
  const report: DryRunReport = {
    files, rows: 0, valid: 0, invalid: [], invalidCount: 0, requests: 0, firstRequestBody: null,
    estimatedPromptTokens: 0, estimatedSeconds: 0, assumedLatencyMs: options.assumedLatencyMs,
  };
  const note = (file: string, line: number, id: string, problem: string): void => {
    report.invalidCount++;
    if (report.invalid.length < options.maxListed) report.invalid.push({ file, line, id, problem });
  };
  for await (const row of readRows(files)) {
    const id = rowId(row, config.idField ?? undefined);
    // The same rows a run with this --shard would take, so the counts and estimate are its own.
    if (config.shard && !inShard(id, config.shard)) continue;
    report.rows++;
    if (!seen.add(id)) {
      note(row.file, row.line, id, `duplicate id "${id}"`);
      continue;
    }
    if (row.kind === 'invalid') {
      note(row.file, row.line, id, row.problem);
      continue;
    }
    const messages = rowToMessages(row.fields, { system: config.system, template: config.template });
    if (!messages.ok) {
      note(row.file, row.line, id, messages.problem);
      continue;
    }
    const request = buildChatRequest(messages.messages, { baseUrl: config.baseUrl, model: config.model, params: config.params });
    report.valid++;
    report.requests += config.repeat;
    report.estimatedPromptTokens += request.estimatedTokens * config.repeat;
    report.firstRequestBody ??= request.body;
  }
  const byConcurrency = (report.requests * options.assumedLatencyMs) / 1000 / config.concurrency;
  const byRpm = config.rpm ? (report.requests / config.rpm) * 60 : 0;
  const byTpm = config.tpm ? (report.estimatedPromptTokens / config.tpm) * 60 : 0;
  report.estimatedSeconds = Math.max(byConcurrency, byRpm, byTpm);
  return report;
}
