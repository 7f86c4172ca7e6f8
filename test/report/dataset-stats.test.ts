import { describe, expect, it } from 'vitest';
import type { RowRecord } from '../../src/record/record.js';
import { DatasetTally } from '../../src/report/dataset-stats.js';
import { readViewRows } from '../../src/report/rows-view.js';
import { jsonlOf, makeTempDir } from '../support/temp-dir.js';

/** A successful sample of row `id` whose JSON reply is `data`. */
function sample(id: string, index: number, data: unknown): RowRecord {
  return {
    id,
    file: 'q.jsonl',
    line: Number(id.slice(1)),
    sample: index,
    model: 'm',
    reply: JSON.stringify(data),
    data,
    code: null,
  } as unknown as RowRecord;
}

describe('sample agreement (--repeat)', () => {
  it('reads the --expect field of a JSON reply, as model agreement does: one label with varying scores agrees', () => {
    const tally = new DatasetTally(true, 'label');
    const labels = ['Positive', 'positive', ' positive', 'positive', 'POSITIVE'];
    for (const [i, label] of labels.entries()) tally.add(sample('r1', i, { label, score: 0.5 + i / 10 }), true);
    for (const [i, label] of ['negative', 'negative', 'neutral', 'negative', 'negative'].entries())
      tally.add(sample('r2', i, { label, score: 0.9 }), true);
    const agreement = tally.summary().agreement!;
    expect(agreement).toMatchObject({ rows: 2, unanimous: 1 });
    expect(agreement.mean).toBeCloseTo((1 + 0.8) / 2);
    expect(agreement.least).toEqual([{ id: 'r2', samples: 5, agreement: 0.8, distinct: 2 }]);
  });

  it('without --expect compares the whole of data, and a failure by its code', () => {
    const tally = new DatasetTally();
    tally.add(sample('r1', 0, { label: 'a', score: 1 }), true);
    tally.add(sample('r1', 1, { score: 1, label: 'a' }), true);
    tally.add(sample('r1', 2, { label: 'a', score: 0.5 }), true);
    tally.add({ ...sample('r1', 3, null), data: undefined, reply: null, code: 'timeout' } as RowRecord, false);
    expect(tally.summary().agreement!.least).toEqual([{ id: 'r1', samples: 4, agreement: 0.5, distinct: 3 }]);
  });
});

describe("the page's sample agreement", () => {
  it('reads the --expect field too: the rows view agrees with the text report', async () => {
    const dir = await makeTempDir();
    try {
      const records = [0, 1, 2].map((i) => sample('r1', i, { label: i === 1 ? 'Yes' : 'yes', score: i }));
      records.push(sample('r2', 0, { label: 'no' }), sample('r2', 1, { label: 'yes' }));
      await dir.write('output.jsonl', jsonlOf(records));
      const view = await readViewRows(dir.file('output.jsonl'), dir.file('errors.jsonl'), undefined, [], 'label');
      expect(view.rows.map((row) => [row.id, row.ag])).toEqual([
        ['r1', 1],
        ['r1', 1],
        ['r1', 1],
        ['r2', 0.5],
        ['r2', 0.5],
      ]);
    } finally {
      await dir.remove();
    }
  });
});
