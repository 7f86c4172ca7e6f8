import { describe, expect, it } from 'vitest';
import { reportInternalError } from '../../src/cli/internal-error.js';
import { Redactor } from '../../src/record/redactor.js';
import { markOnCrash } from '../../src/run/crash-marks.js';

const KEY = 'sk-internal-error-0123456789abcdef';

function capture() {
  const lines: string[] = [];
  return { lines, stderr: { write: (text: string) => lines.push(text) !== 0 } };
}

describe('an internal error', () => {
  it("masks the key of the run the command made, and of every run still in progress, and no other run's", async () => {
    const own = new Redactor();
    own.addSecret(KEY);
    const made = capture();
    await reportInternalError(new Error(`boom ${KEY}`), { resumable: true, argv: ['run'], stderr: made.stderr, env: {}, redactor: own });
    expect(made.lines.join('')).toContain('boom [key sk-i…cdef]');

    const inProgress = new Redactor();
    inProgress.addSecret(KEY);
    const marked: string[] = [];
    const unregister = markOnCrash(async (message) => void marked.push(message), inProgress);
    const uncaught = capture();
    await reportInternalError(new Error(`boom ${KEY}`), { resumable: true, argv: ['run'], stderr: uncaught.stderr, env: {} });
    unregister();
    expect(uncaught.lines.join('')).toContain('boom [key sk-i…cdef]');
    expect(marked).toEqual(['boom [key sk-i…cdef]']);

    const none = capture();
    await reportInternalError(new Error(`boom ${KEY}`), { resumable: true, argv: ['run'], stderr: none.stderr, env: {} });
    expect(none.lines.join('')).toContain(`boom ${KEY}`);
  });
});
