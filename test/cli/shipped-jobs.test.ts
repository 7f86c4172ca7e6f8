import { readdir } from 'node:fs/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { perTestDir } from '../support/per-test.js';
import { copyShippedJobs } from '../support/shipped-jobs.js';
import type { TempDir } from '../support/temp-dir.js';

let dir: TempDir;
perTestDir((fresh) => (dir = fresh));
beforeEach(() => copyShippedJobs(dir));

describe('the jobs shipped in jobs/', () => {
  it('every one (whatever is added later) validates and runs against the simulator with one record per row', async () => {
    const jobs = (await readdir(dir.file('jobs'))).filter((name) => name.endsWith('.json'));
    expect(jobs.length).toBeGreaterThanOrEqual(3);
    for (const name of jobs) {
      const validated = await runCli(['validate', `jobs/${name}`], { cwd: dir.path });
      expect(validated.code, `${name}: ${validated.stdout}`).toBe(0);
      // `ok (8 row(s))`, or with repeat `ok (8 row(s), 3 samples each: 24 request(s))` (`2 models each`): one record per request.
      const counts = /ok \((\d+) row\(s\)(?:, \d+ (?:samples|models) each: (\d+) request\(s\))?\)/.exec(validated.stdout);
      const rows = Number(counts?.[2] ?? counts?.[1]);
      const ran = await runCli(['run', '--job', `jobs/${name}`, '--simulate', '--out', `out-${name}`, '--quiet'], { cwd: dir.path });
      expect(ran.code, `${name}: ${ran.stderr}`).toBe(0);
      expect(ran.stderr).toContain('replies are SIMULATED');
      expect(await dir.jsonl(`out-${name}/output.jsonl`)).toHaveLength(rows);
      if (name === 'enrich-products.json')
        expect((await dir.read(`out-${name}/output.csv`)).split('\n')[0]).toMatch(
          /^sku,.*,reply,status,code,duration_ms,trace_id,attempts$/,
        );
      if (name === 'compare-models.json') {
        // The simulator plays the two models apart: the report tells them apart, by category too.
        const report = await runCli(['report', `out-${name}`, '--group-by', 'category'], { cwd: dir.path });
        expect(report.code, report.stderr).toBe(0);
        expect(report.stdout).toMatch(
          /quiz-strong-right85 \d+\.\d% vs quiz-weak-right70 \d+\.\d%: .*, \d+ rows judged by both: quiz-strong-right85 is right more often/,
        );
        expect(report.stdout).toMatch(/\n {2}multiplication {2}\d+ /);
      }
      if (name === 'evaluate-sentiment.json') {
        expect((await dir.read(`out-${name}/output.csv`)).split('\n')[0]).toBe(
          'id,file,line,sample,reply,status,code,duration_ms,trace_id,attempts,correct,data.label,data.score',
        );
        const records = await dir.jsonl<{ data: unknown; correct: unknown }>(`out-${name}/output.jsonl`);
        expect(records.every((r) => typeof r.data === 'object')).toBe(true);
        // The job expects each review's own label: every reply is judged.
        expect(records.every((r) => typeof r.correct === 'boolean')).toBe(true);
      }
    }
  });
});
