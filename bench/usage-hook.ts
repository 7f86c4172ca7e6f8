/**
 * Loaded with `node --import` into the client when /usr/bin/time is missing: on exit, writes the
 * process's own resource usage (CPU, peak RSS) to the file named by BENCH_USAGE_FILE.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ userMs: usage.userCPUTime / 1000, systemMs: usage.systemCPUTime / 1000, maxRssKb: usage.maxRSS }));
  });
}
