import { describe, expect, it } from 'vitest';
import { noRows, tallyRows } from '../../src/output/row-counts.js';

describe('the row counts', () => {
  it('counts each row once, as pending, succeeded or failed in its category', () => {
    const counts = noRows();
    tallyRows(counts, 'succeeded');
    tallyRows(counts, 'rate_limited');
    tallyRows(counts, 'rate_limited');
    tallyRows(counts, 'invalid_input');
    tallyRows(counts, 'pending', 5);
    tallyRows(counts, 'pending', 0);
    expect(counts).toEqual({
      rows: 9,
      succeeded: 1,
      cut_at_max_tokens: 0,
      failed: 3,
      pending: 5,
      by_category: { rate_limited: 2, invalid_input: 1 },
    });
    expect(counts.rows).toBe(counts.succeeded + counts.failed + counts.pending);
    expect(noRows()).not.toBe(noRows());
  });
});
