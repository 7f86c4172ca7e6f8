import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/support/slow-first-sequencer.js';

export default defineConfig({
  test: {
    // Processes, not threads: in-process CLI tests change the working directory
    // (test/support/cli-in-process.ts), which worker threads may not.
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: one on the 2-core machines the suite
    // must fit (issue 33: 2 min 30 s). Most test time is waiting on sockets, timers and fsync,
    // not computing: on 2 idle cores the suite took 157 s with 2 files at a time, 130 s with 3,
    // 118-122 s with 4 (every test passing each time).
    maxWorkers: 4,
    // A worker process runs file after file instead of starting afresh for each: most of a
    // file's cost was loading its modules again (import 103 s of the suite's 137 s on 2 cores,
    // against 22 s of 81 s this way). Safe here because no test file leaves state behind it: no
    // module mocks, fake timers restored after each test, the in-process CLI returns to the
    // folder it found, and every server, simulator and temporary folder is closed by its test.
    isolate: false,
    // The machines here have 2 cores shared with other work; a test's own deadline only matters
    // when something hangs, so it is generous rather than a hidden timing assertion.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The slowest files first, so that none starts last with the other workers idle.
    sequence: { sequencer: SlowFirstSequencer },
    // A test that checks nothing passes whatever the code does: each must assert something.
    expect: { requireAssertions: true },
  },
});
