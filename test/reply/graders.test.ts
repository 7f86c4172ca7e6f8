import { describe, expect, it } from 'vitest';
import type { RowRecord } from '../../src/record/record.js';
import { chosenLetter } from '../../src/reply/grade-choice.js';
import { numbersIn } from '../../src/reply/grade-number.js';
import { gradeProblems, parseGrader } from '../../src/reply/grader.js';
import { judgeRecord } from '../../src/reply/reference-answer.js';

// Each grader's examples of what passes and fails: the same as docs/evaluation.md shows.

const record = (reply: string, data?: unknown): RowRecord => ({
  id: 'a',
  file: 'in.jsonl',
  line: 1,
  model: 'm',
  reply,
  status: 200,
  code: null,
  trace_id: null,
  attempts: 1,
  started_at: '2026-01-01T00:00:00.000Z',
  duration_ms: 5,
  ...(data === undefined ? {} : { data }),
});

function grade(spec: string, reply: string, reference: unknown, data?: unknown): boolean | null {
  const grader = parseGrader(spec);
  if (typeof grader === 'string') throw new Error(grader);
  return judgeRecord(record(reply, data), { field: 'answer', value: reference }, data === undefined ? 'text' : 'json', grader);
}

describe('--grade exact (the default)', () => {
  it.each([
    ['  paris\n', 'Paris', true],
    ['The answer is Paris.', 'Paris', false],
    ['4.0', 4, false],
  ])('%j against %j: %s', (reply, reference, correct) => {
    expect(grade('exact', reply, reference)).toBe(correct);
  });
});

describe('--grade includes', () => {
  it.each([
    ['The answer is Paris.', 'Paris', true],
    ['PARIS, of course', 'paris', true],
    ['New York City', 'new york', true],
    ['Parisian cafés', 'Paris', false],
    ['42', 4, false],
    ['it is 4.', 4, true],
    ['not sure', 'no', false],
    ['I would use C++ here', 'C++', true],
    ['it costs $5', '$5', true],
    ['Zürich', 'zür', false],
    ['London', 'Paris', false],
  ])('%j includes %j: %s', (reply, reference, correct) => {
    expect(grade('includes', reply, reference)).toBe(correct);
  });

  it('finds a later occurrence on word boundaries after an earlier one inside a word', () => {
    expect(grade('includes', 'Parisian, no: Paris', 'Paris')).toBe(true);
  });
});

describe('--grade regex:PATTERN', () => {
  it.each([
    ['regex:ANSWER: (\\w+)', 'Reasoning... ANSWER: paris', 'Paris', true],
    ['regex:ANSWER: (\\w+)', 'Reasoning... ANSWER: Rome', 'Paris', false],
    ['regex:ANSWER: (\\w+)', 'Paris', 'Paris', false],
    ['regex:\\d+', 'there are 12 of them', '12', true],
    ['regex:(?i)answer is (\\w+)', 'The ANSWER IS Paris', 'paris', true],
    ['regex:(?:city: )?(?<city>[A-Z]\\w+)$', 'city: Paris', 'Paris', true],
    ['regex:(x)|(\\d+)', 'a 7', '7', true],
  ])('%s on %j against %j: %s', (spec, reply, reference, correct) => {
    expect(grade(spec, reply, reference)).toBe(correct);
  });

  it('runs in linear time on a pattern that would backtrack for ages in JavaScript', () => {
    const started = performance.now();
    expect(grade('regex:^(a+)+$', `${'a'.repeat(5000)}!`, 'a')).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('refuses a backreference, a lookaround and an empty pattern, naming the pattern', () => {
    expect(parseGrader('regex:(a)\\1')).toMatch(/^regex:\(a\)\\1: not a pattern chatbatch can match in linear time/);
    expect(parseGrader('regex:(?=a)')).toMatch(/lookarounds are not supported/);
    expect(parseGrader('regex:')).toMatch(/needs a pattern/);
  });
});

describe('--grade number[:TOLERANCE]', () => {
  it.each([
    ['number', '2 apples and 3 pears: 5 in all', 5, true],
    ['number', 'The answer is 4.0', 4, true],
    ['number', 'about 1,000 people', '1000', true],
    ['number', 'about 1,000 people', 1000, true],
    ['number', '1e3', '1,000', true],
    ['number', 'It costs $5.', '$5', true],
    ['number', 'minus 3: -3', -3, true],
    ['number', 'use gpt-4o', -4, false],
    ['number', '3,5', 5, true],
    ['number', 'no idea', 4, false],
    ['number', '4.01', 4, false],
    ['number:0.01', '4.01', 4, true],
    ['number:0.01', '4.02', 4, false],
    ['number:0.01', '1.01', '1.00', true],
    ['number:1%', '101', 100, true],
    ['number:1%', '98.9', 100, false],
    ['number:0.5', 'between 2-3', 3, true],
  ])('%s: %j against %j: %s', (spec, reply, reference, correct) => {
    expect(grade(spec, reply, reference)).toBe(correct);
  });

  it('does not judge a reference with no number, or with several', () => {
    expect(grade('number', '4', 'four')).toBeNull();
    expect(grade('number', '4', '4 or 5')).toBeNull();
  });

  it('reads a JSON answer as it is when a number, like a reply when a string, wrong otherwise', () => {
    expect(grade('number', '{}', 4, { answer: 4.0 })).toBe(true);
    expect(grade('number', '{}', 4, { answer: 'about 4' })).toBe(true);
    expect(grade('number', '{}', 4, { answer: true })).toBe(false);
    expect(grade('number', '{}', 4, 4)).toBe(true);
  });

  it('reads signs, groups, fractions and exponents', () => {
    expect(numbersIn('−2, +3, .5, 1,234,567.8, 2.5E-4, x2, v1.2')).toEqual([-2, 3, 0.5, 1234567.8, 0.00025]);
  });

  it('refuses a tolerance that is not a number or a percentage', () => {
    expect(parseGrader('number:abc')).toMatch(/tolerance must be a number/);
    expect(parseGrader('number:-1')).toMatch(/tolerance must be a number/);
    expect(parseGrader('number:')).toMatch(/tolerance must be a number/);
  });
});

describe('--grade choice', () => {
  it.each([
    ['ANSWER: B', 'B', true],
    ['Let me think.\nanswer: (c)', 'C', true],
    ['I think it is (B) because (A) is wrong', 'B', true],
    ['B. Paris', 'B', true],
    ['B) Paris', '(B)', true],
    ['b', 'B', false],
    ['B', 'b.', true],
    ['A. Paris', 'B', false],
    ['I am not sure', 'I', false],
    ['ANSWER: Because', 'B', false],
    ['The capital is Paris', 'B', false],
  ])('%j against %j: %s', (reply, reference, correct) => {
    expect(grade('choice', reply, reference)).toBe(correct);
  });

  it('reads ANSWER: before a leading letter, and a leading letter before one in parentheses', () => {
    expect(chosenLetter('A. no: ANSWER: C')).toBe('C');
    expect(chosenLetter('A. not (B)')).toBe('A');
  });

  it('does not judge a reference that is not a letter', () => {
    expect(grade('choice', 'ANSWER: B', 'Paris')).toBeNull();
    expect(grade('choice', 'ANSWER: B', 2)).toBeNull();
  });

  it('reads a JSON answer as text', () => {
    expect(grade('choice', '{}', 'B', { answer: 'B' })).toBe(true);
  });
});

describe('--grade values', () => {
  it('names what is wrong: an unknown grader, an argument where none is taken, a grader without --expect', () => {
    expect(parseGrader('fuzzy')).toMatch(/"fuzzy" is not a grader: use exact, includes/);
    expect(parseGrader('includes:x')).toMatch(/includes takes nothing after a colon/);
    expect(gradeProblems('includes', null)).toEqual(['--grade includes compares replies with a reference answer: give --expect FIELD too']);
    expect(gradeProblems('exact', null)).toEqual([]);
    expect(gradeProblems('number:1%', 'answer')).toEqual([]);
  });
});
