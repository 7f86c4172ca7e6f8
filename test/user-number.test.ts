import { describe, expect, it } from 'vitest';
import { POSITIVE_INTEGER, PROBABILITY, readUserNumber } from '../src/user-number.js';

// One reader for every number a user types (issue 42, item 2): decimal digits only, finite, in range.
describe('readUserNumber', () => {
  const amount = { integer: false, min: 0, minExclusive: true, max: 1e9, words: 'a number above 0' };
  it.each([
    ['2.50', amount, 2.5],
    ['.5', amount, 0.5],
    [' 16 ', amount, 16],
    ['0x10', amount, null],
    ['0b11', amount, null],
    ['1e3', amount, null],
    ['Infinity', amount, null],
    ['9'.repeat(400), amount, null],
    ['0', amount, null],
    ['-1', amount, null],
    ['', amount, null],
    ['2000000000', amount, null],
    ['12', POSITIVE_INTEGER, 12],
    ['1.5', POSITIVE_INTEGER, null],
    ['0x10', POSITIVE_INTEGER, null],
    ['99999999999999999999', POSITIVE_INTEGER, null],
    ['1', PROBABILITY, 1],
    ['1.01', PROBABILITY, null],
    [3, POSITIVE_INTEGER, 3],
    [Number.POSITIVE_INFINITY, amount, null],
  ])('%j', (text, rule, expected) => {
    const read = readUserNumber(text, rule);
    if (expected === null) expect(read).toMatchObject({ problem: expect.stringContaining(JSON.stringify(text)) });
    else expect(read).toBe(expected);
  });
});
