import { mkdir } from 'node:fs/promises';
import { jsonlOf, type TempDir } from './temp-dir.js';

/**
 * The output directory of a three-model label evaluation (`--reply-format json --expect label
 * --keep-input`), written record by record as the engine writes them: six reviews, each model's
 * reply `{"label", "score"}` with scores that differ between models, so only the label can agree.
 *
 *   row  reference  a         b         c
 *   r0   positive   positive  positive  positive
 *   r1   negative   negative  positive  negative     b alone wrong
 *   r2   neutral    neutral   neutral   positive     c alone wrong
 *   r3   positive   negative  negative  negative     all wrong
 *   r4   negative   negative  negative  positive     c alone wrong
 *   r5   positive   positive  neutral   positive     b alone wrong
 *
 * `answered` stops a model after its first N rows (a budget stop: the rest stay pending).
 */
export const LABEL_MODELS = ['a', 'b', 'c'] as const;
export const REFERENCES = ['positive', 'negative', 'neutral', 'positive', 'negative', 'positive'];
export const LABELS: Record<(typeof LABEL_MODELS)[number], string[]> = {
  a: ['positive', 'negative', 'neutral', 'negative', 'negative', 'positive'],
  b: ['positive', 'positive', 'neutral', 'negative', 'negative', 'neutral'],
  c: ['positive', 'negative', 'positive', 'negative', 'positive', 'positive'],
};

export async function writeLabelledRun(
  dir: TempDir,
  answered: Partial<Record<(typeof LABEL_MODELS)[number], number>> = {},
): Promise<string> {
  await mkdir(dir.file('out'), { recursive: true });
  const records: unknown[] = [];
  let pending = 0;
  REFERENCES.forEach((reference, i) => {
    LABEL_MODELS.forEach((model, m) => {
      if (i >= (answered[model] ?? REFERENCES.length)) {
        pending++;
        return;
      }
      const data = { label: LABELS[model][i], score: 0.5 + m / 10 + i / 100 };
      records.push({
        id: `r${i}`,
        file: 'reviews.jsonl',
        line: i + 1,
        input: { text: `review number ${i}`, label: reference },
        model,
        reply: JSON.stringify(data),
        status: 200,
        code: null,
        trace_id: `t-${model}-${i}`,
        attempts: 1,
        started_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        duration_ms: 100,
        finish_reason: 'stop',
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        data,
        correct: data.label === reference,
      });
    });
  });
  await dir.write('out/output.jsonl', jsonlOf(records));
  await dir.write('out/errors.jsonl', '');
  const manifest = {
    tool: { name: 'chatbatch', version: '0.0.0-test' },
    status: pending > 0 ? 'stopped_at_limit' : 'complete',
    job: 'labels',
    config: { model: 'a', models: [...LABEL_MODELS], expect: 'label', reply_format: 'json', keep_input: 'all' },
    counts: { rows: 18, succeeded: records.length, failed: 0, pending, by_category: {} },
    started_at: '2026-01-01T00:00:00.000Z',
    ended_at: '2026-01-01T00:00:30.000Z',
    sessions: [],
    files: { output: 'output.jsonl', errors: 'errors.jsonl' },
  };
  await dir.write('out/manifest.json', JSON.stringify(manifest, null, 2));
  return dir.file('out');
}
