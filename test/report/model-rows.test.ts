import { describe, expect, it } from 'vitest';
import { groupByRow, type KeyedViewRow } from '../../src/report/model-rows.js';

function viewRow(id: string, model: string, answerKey: string | null, sample?: number): KeyedViewRow {
  return {
    id,
    ...(sample === undefined ? {} : { s: sample }),
    ok: answerKey !== null,
    st: 200,
    cat: answerKey === null ? 'server_error' : null,
    code: null,
    msg: null,
    att: 1,
    fr: null,
    tr: null,
    in: model === 'a' ? { q: `question ${id}` } : null,
    r: answerKey,
    d: null,
    rowKey: `${id}#${sample ?? ''}`,
    model,
    answerKey,
  };
}

describe("the rows view's rows of a multi-model run", () => {
  it("puts each row's models side by side, in the given order, the rows where they disagree first", () => {
    const view = groupByRow(
      [
        viewRow('r1', 'a', 'x'),
        viewRow('r1', 'b', 'x'),
        viewRow('r2', 'a', 'x'),
        viewRow('r2', 'b', 'y'),
        viewRow('r3', 'b', 'x'),
        viewRow('r3', 'a', null),
        viewRow('r4', 'b', 'z'),
      ],
      ['b', 'a'],
    )!;
    expect(view.models).toEqual(['b', 'a']);
    expect(view.rows.map((row) => [row.id, row.dis])).toEqual([
      ['r2', true],
      ['r1', false],
      ['r3', undefined], // one reply: nothing to compare
      ['r4', undefined], // no record from a (pending)
    ]);
    const r2 = view.rows[0]!;
    expect(r2.ms.map((m) => m?.r)).toEqual(['y', 'x']);
    // The input is shown once, for every model; the model's record keeps none.
    expect(r2.in).toEqual({ q: 'question r2' });
    expect(r2.ms.map((m) => m?.in)).toEqual([null, null]);
    expect(view.rows[3]!.ms).toEqual([expect.objectContaining({ r: 'z' }), null]);
  });

  it('keeps samples apart: a row per sample', () => {
    const view = groupByRow([
      viewRow('r1', 'a', 'x', 0),
      viewRow('r1', 'b', 'x', 0),
      viewRow('r1', 'a', 'x', 1),
      viewRow('r1', 'b', 'w', 1),
    ])!;
    expect(view.rows.map((row) => [row.s, row.dis])).toEqual([
      [1, true],
      [0, false],
    ]);
  });

  it('is no grouping for a run of one model', () => {
    expect(groupByRow([viewRow('r1', 'a', 'x'), viewRow('r2', 'a', 'y')])).toBeNull();
  });
});
