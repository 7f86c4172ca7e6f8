import { describe, expect, it } from 'vitest';
import { jsonMatches } from '../../src/reply/reference-answer.js';
import { answersAgree } from '../../src/report/model-agreement.js';
import { answerKey } from '../../src/report/model-answer.js';

const text = (reply: string | null) => answerKey({ reply }, true);
const data = (value: unknown) => answerKey({ reply: JSON.stringify(value), data: value }, true);

describe('answerKey: when two models give the same answer', () => {
  it('compares a text reply trimmed and ignoring case, like --expect', () => {
    expect(text('  Paris\n')).toBe(text('paris'));
    expect(text('PARIS')).toBe(text('paris'));
    expect(text('Paris.')).not.toBe(text('Paris'));
    expect(text('Lyon')).not.toBe(text('Paris'));
  });

  it('has no answer for a failure or a record without a reply', () => {
    expect(answerKey({ reply: 'Paris' }, false)).toBeNull();
    expect(text(null)).toBeNull();
  });

  it('compares data as JSON values: keys in any order, lists in order, strings trimmed and ignoring case', () => {
    expect(data({ city: ' Paris', n: [1, 2] })).toBe(data({ n: [1, 2], city: 'paris' }));
    expect(data([1, 2])).not.toBe(data([2, 1]));
    expect(data({ a: 1 })).not.toBe(data({ a: 1, b: null }));
    expect(data({ A: 1 })).not.toBe(data({ a: 1 }));
    expect(data('4')).not.toBe(data(4));
    expect(data(true)).not.toBe(data('true'));
    // data, not the reply text, decides.
    expect(answerKey({ reply: '{"a":1}', data: { a: 1 } }, true)).not.toBe(answerKey({ reply: '{"a":1}', data: { a: 2 } }, true));
  });

  it("with --expect's field, compares a JSON reply's answer there (the judge's part), else the whole data", () => {
    const labelled = (value: unknown) => answerKey({ reply: JSON.stringify(value), data: value }, true, 'label');
    expect(labelled({ label: 'Positive', score: 0.4 })).toBe(labelled({ label: 'positive', score: 0.9 }));
    expect(labelled({ label: 'positive', score: 0.4 })).not.toBe(labelled({ label: 'negative', score: 0.4 }));
    // Without the field, the whole data decides, as the judge does.
    expect(labelled({ score: 0.4 })).not.toBe(labelled({ score: 0.9 }));
    expect(data({ label: 'positive', score: 0.4 })).not.toBe(data({ label: 'positive', score: 0.9 }));
  });

  it('agrees with the reference judge (jsonMatches both ways) wherever both read values of the same JSON types', () => {
    const values: unknown[] = [
      'Paris',
      ' paris ',
      'Lyon',
      4,
      4.5,
      true,
      false,
      null,
      [1, 'A'],
      [1, 'a '],
      ['a', 1],
      { x: 'Yes', y: [true] },
      { y: [true], x: 'yes' },
      { x: 'yes' },
    ];
    // The judge reads a string reference as JSON against a value that is not a string (CSV cells): left out here.
    for (const a of values)
      for (const b of values) {
        if ((typeof a === 'string') !== (typeof b === 'string')) continue;
        expect(data(a) === data(b), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`).toBe(jsonMatches(a, b) && jsonMatches(b, a));
      }
  });
});

describe('answersAgree', () => {
  it.each([
    [[], null],
    [['a'], null],
    [['a', null, null], null],
    [['a', 'a'], true],
    [['a', null, 'a'], true],
    [['a', 'b'], false],
    [['a', 'a', 'b'], false],
  ] as const)('%j -> %s', (answers, expected) => {
    expect(answersAgree(answers)).toBe(expected);
  });
});
