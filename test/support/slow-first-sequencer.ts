import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/**
 * The test files that take longest (seconds each, measured in a clean clone on 2 cores: they
 * spawn the CLI, drive DuckDB or Chromium), longest first (measured 2026-11-26 18:10). A clean clone has no
 * vitest cache, so vitest would order files by size and could start a 20 s file last, leaving
 * the other workers idle while it runs; started first, they overlap the many short files. A
 * scheduling hint only: a file missing here still runs, after these.
 */
const SLOW_FIRST = [
  'test/cli/resume.test.ts',
  'test/cli/report-browser.test.ts',
  'test/cli/spawned-commands.test.ts',
  'test/cli/setup-failures.test.ts',
  'test/cli/request-params.test.ts',
  'test/cli/unreachable-endpoint.test.ts',
  'test/cli/write-failures.test.ts',
  'test/cli/repeat.test.ts',
  'test/cli/shards.test.ts',
  'test/cli/operator.test.ts',
  'test/state/lock.test.ts',
  'test/cli/reply-format.test.ts',
  'test/cli/rate-limits.test.ts',
  'test/input/parquet-text-column.test.ts',
  'test/state/previous-results.test.ts',
  'test/cli/merge-safety.test.ts',
  'test/cli/input-safety.test.ts',
  'test/cli/failures.test.ts',
  'test/output/parquet-format.test.ts',
];

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification): number => {
      const index = SLOW_FIRST.findIndex((name) => file.moduleId.endsWith(name));
      return index === -1 ? SLOW_FIRST.length : index;
    };
    // Array.prototype.sort is stable: the rest keep vitest's own order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
