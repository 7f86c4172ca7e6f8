import { mkdir } from 'node:fs/promises';
import { jsonlOf, type TempDir } from './temp-dir.js';

/**
 * The output directory of a three-model evaluation, written record by record as the engine
 * writes them (input order, then the models in the order given): 20 questions whose reference
 * answer is `i * 2`.
 *
 * - alpha answers every question, right except q3 ("seven") and q7 ("x"): 18 of 20 right;
 *   100 + i ms each.
 * - beta answers " I*2 " (spaces around), q3 "SEVEN" (the same answer as alpha's: case is
 *   ignored), q11 "21"; q19 fails (server_error): 17 of 19 right; 200 + 10 i ms each.
 * - gamma answers right for q0-q15, except q5 (refused: a failure with usage) and q8 ("1",
 *   finish_reason length); q16-q19 "no idea": 14 of 19 right; 50 ms each.
 *
 * Agreement (worked out by hand; the tests assert these): every row has replies from two models
 * or more (q5: alpha and beta; q19: alpha and gamma). The models disagree on q3, q7, q8, q11,
 * q16, q17, q18, q19: 12 of 20 rows unanimous. alpha/beta 17 of 19 the same (q7, q11 differ),
 * alpha/gamma 12 of 19 (q3, q7, q8, q16-q19), beta/gamma 12 of 18 (q3, q8, q11, q16-q18).
 */
export const MODELS = ['alpha', 'beta', 'gamma'] as const;
export const DISAGREEING = ['q3', 'q7', 'q8', 'q11', 'q16', 'q17', 'q18', 'q19'];

type Outcome = { reply: string; finish?: string } | { failed: 'server_error' | 'refused' };

function outcomeOf(model: (typeof MODELS)[number], i: number): Outcome {
  const gold = String(i * 2);
  if (model === 'alpha') return { reply: i === 3 ? 'seven' : i === 7 ? 'x' : gold };
  if (model === 'beta') {
    if (i === 19) return { failed: 'server_error' };
    return { reply: i === 3 ? 'SEVEN' : i === 11 ? '21' : ` ${gold} ` };
  }
  if (i === 5) return { failed: 'refused' };
  if (i === 8) return { reply: '1', finish: 'length' };
  return { reply: i >= 16 ? 'no idea' : gold };
}

const durationOf = (model: (typeof MODELS)[number], i: number): number =>
  model === 'alpha' ? 100 + i : model === 'beta' ? 200 + 10 * i : 50;

function recordOf(model: (typeof MODELS)[number], i: number) {
  const outcome = outcomeOf(model, i);
  const base = {
    id: `q${i}`,
    file: 'q.jsonl',
    line: i + 1,
    input: { question: `What is ${i} times 2?`, gold: String(i * 2) },
    model,
    trace_id: `t-${model}-${i}`,
    attempts: 1,
    started_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    duration_ms: durationOf(model, i),
  };
  if ('failed' in outcome) {
    const refused = outcome.failed === 'refused';
    return {
      ...base,
      reply: null,
      status: refused ? 200 : 500,
      code: refused ? 'refused' : 'server_error',
      message: refused ? 'I cannot help with that.' : 'upstream failed',
      category: outcome.failed,
      ...(refused ? { finish_reason: 'stop', usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 } } : {}),
      correct: null,
    };
  }
  return {
    ...base,
    reply: outcome.reply,
    status: 200,
    code: null,
    finish_reason: outcome.finish ?? 'stop',
    usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
    correct: outcome.reply.trim().toLowerCase() === String(i * 2),
  };
}

/** Writes the run into `dir`/`out` (output.jsonl, errors.jsonl, manifest.json); returns the folder. */
export async function writeMultiModelRun(dir: TempDir): Promise<string> {
  await mkdir(dir.file('out'), { recursive: true });
  const ok: unknown[] = [];
  const failed: unknown[] = [];
  for (let i = 0; i < 20; i++) {
    for (const model of MODELS) {
      const record = recordOf(model, i);
      (record.code === null ? ok : failed).push(record);
    }
  }
  await dir.write('out/output.jsonl', jsonlOf(ok));
  await dir.write('out/errors.jsonl', jsonlOf(failed));
  const manifest = {
    tool: { name: 'chatbatch', version: '0.0.0-test' },
    status: 'finished_with_failures',
    job: 'three models',
    config: { model: 'alpha', models: [...MODELS] },
    counts: { rows: 60, succeeded: 58, failed: 2, pending: 0, by_category: { server_error: 1, refused: 1 } },
    cost: {
      usd: null,
      // gamma's figure as a bare number: the report reads both shapes.
      by_model: { alpha: { usd: 0.0012 }, beta: { usd: null }, gamma: 0.0003 },
      source: '--price',
      note: 'estimated',
    },
    started_at: '2026-01-01T00:00:00.000Z',
    ended_at: '2026-01-01T00:00:30.000Z',
    sessions: [],
    files: { output: 'output.jsonl', errors: 'errors.jsonl' },
  };
  await dir.write('out/manifest.json', JSON.stringify(manifest, null, 2));
  return dir.file('out');
}
