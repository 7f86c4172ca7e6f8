import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Processes, not threads: in-process CLI tests change the working directory
    // (test/support/cli-in-process.ts), which worker threads may not.
    pool: 'forks',
    // The machines here have 2 cores shared with other work; a test's own deadline only matters
    // when something hangs, so it is generous rather than a hidden timing assertion.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A test that checks nothing passes whatever the code does: each must assert something.
    expect: { requireAssertions: true },
  },
});
