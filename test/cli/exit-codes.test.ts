import { describe, expect, it } from 'vitest';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.js';

describe('exit codes (a contract: the guide, section 4)', () => {
  it.each([
    ['complete', 0],
    ['finished_with_failures', 1],
    ['aborted', 3],
    ['stopped_at_limit', 4],
    ['write_failed', 5],
    ['error', 70],
    ['interrupted', 130],
  ] as const)('a run that ended %s exits %i', (status, code) => {
    expect(exitCodeFor(status)).toBe(code);
  });

  it('keeps 2 for "nothing was sent", which no finished run can end with', () => {
    expect(EXIT.usage).toBe(2);
  });
});
