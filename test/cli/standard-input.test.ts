import { describe, expect, it } from 'vitest';
import { namesStandardInput } from '../../src/cli/standard-input.js';

// What yargs leaves after parsing: a lone `-` input vanishes, `--name -` becomes ''.
const parsed: Record<string, unknown> = { system: '', force: true, 'retry-failed': [''], model: 'm' };
const optionValue = (option: string): unknown => parsed[option];

describe('namesStandardInput', () => {
  it.each([
    [['run', '-'], true],
    [['run', 'a.jsonl', '-', '--model', 'm'], true],
    [['run', 'a.jsonl', '--force', '-'], true],
    [['run', 'a.jsonl', '--', '-'], true],
    [['run', 'a.jsonl', '--system', '-'], false],
    [['run', 'a.jsonl', '--retry-failed', '-'], false],
    [['run', 'a.jsonl', '--system=-'], false],
    [['run', 'a.jsonl', '--system=x', '-'], true],
    [['run', 'a.jsonl', '--model', 'm'], false],
    [['run', 'a.jsonl', '--', '-x.jsonl'], false],
  ])('%j -> %s', (argv, expected) => {
    expect(namesStandardInput(argv, optionValue)).toBe(expected);
  });
});
