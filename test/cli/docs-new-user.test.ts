import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** README.md and every docs/*.md, with their text. */
async function markdown(): Promise<Array<[string, string]>> {
  const docs = (await readdir(path.join(REPO, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  return Promise.all(['README.md', ...docs].map(async (file) => [file, await readFile(path.join(REPO, file), 'utf8')] as [string, string]));
}

/** The text outside fenced code blocks, line by line (numbered from 1). */
function proseLines(text: string): Array<[number, string]> {
  let fenced = false;
  const lines: Array<[number, string]> = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (!fenced) lines.push([index + 1, line]);
  }
  return lines;
}

describe('what a new user reads (issue 45 item 10)', () => {
  it('every table row of the docs sits in a table: a header, then a |---| line (docs/samples.md ended on two stray rows)', async () => {
    const stray: string[] = [];
    for (const [file, text] of await markdown()) {
      const lines = proseLines(text);
      for (let i = 0; i < lines.length; i++) {
        const [number, line] = lines[i]!;
        if (!line.startsWith('|') || lines[i - 1]?.[1].startsWith('|')) continue;
        // The first row of a block: the header, whose next line is the separator.
        if (!/^\|\s*:?-{3,}/.test(lines[i + 1]?.[1] ?? '')) stray.push(`${file}:${number}: ${line.slice(0, 60)}`);
      }
    }
    expect(stray).toEqual([]);
  });

  it('a page says "see X above" only of an X above it on that page (docs/jobs.md pointed at nothing)', async () => {
    const dangling: string[] = [];
    for (const [file, text] of await markdown()) {
      for (const match of text.matchAll(/see "([^"]+)" above/g)) {
        if (!text.slice(0, match.index).includes(match[1]!)) dangling.push(`${file}: ${match[0]}`);
      }
    }
    expect(dangling).toEqual([]);
    expect(await readFile(path.join(REPO, 'docs/jobs.md'), 'utf8')).not.toMatch(/see above/);
  });

  it("the docs speak of chatbatch, not of this project's machines (docs/output-formats.md ended on a package index)", async () => {
    for (const [file, text] of await markdown()) expect(text, file).not.toMatch(/PyPI is unreachable|package index/i);
  });

  it('--help names Parquet inputs, and every limit that ends a run with exit 4', async () => {
    for (const args of [['run', '--help'], ['--help']]) {
      const help = (await runCli(args)).stdout.replace(/\s+/g, ' ');
      expect(help).toContain('4 stopped at a limit you set (--max-total-tokens, --max-cost, --limit)');
    }
    expect((await runCli(['run', '--help'])).stdout).toMatch(/inputs +Input files or glob patterns \(JSONL, CSV, Parquet\)/);
  });
});

describe('npm start', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(() => dir.remove());

  it('ends by saying how to send the same rows to a real endpoint', async () => {
    const job = path.join(REPO, 'jobs/quickstart.json');
    const result = await runCli(['run', '--job', job, '--simulate', '--force', '--out', 'out/quickstart'], { cwd: dir.path });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.at(-3)).toMatch(
      /^chatbatch: these replies were simulated\. To send the same rows to a real endpoint, take URL and NAME as your provider's console shows them:$/,
    );
    expect(lines.at(-2)).toBe('  export CHATBATCH_API_KEY=...   # or --api-key-file PATH');
    expect(lines.at(-1)).toMatch(/ run --job \S+quickstart\.json --out out\/quickstart --base-url URL --model NAME --force$/);
    expect(lines.at(-1)).not.toContain('--simulate');
  });

  it('after a resumed simulated run, the real-endpoint command starts afresh: no --resume beside --force, and that pair is refused by name', async () => {
    const job = path.join(REPO, 'jobs/quickstart.json');
    const first = await runCli(['run', '--job', job, '--simulate', '--limit', '3', '--out', 'o'], { cwd: dir.path });
    expect(first.code, first.stderr).toBe(4);
    const resumed = await runCli(['run', '--job', job, '--simulate', '--resume', '--retry-failed', '--out', 'o'], { cwd: dir.path });
    expect(resumed.code, resumed.stderr).toBe(0);
    const hint = resumed.stderr.trimEnd().split('\n').at(-1)!;
    // Before, the hint kept --resume: pasted, --force deleted the journal the resume then failed to read.
    expect(hint).toMatch(/ run --job \S+quickstart\.json --out o --base-url URL --model NAME --force$/);
    const both = await runCli(
      ['run', '--job', job, '--out', 'o', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'x', '--resume', '--force'],
      {
        cwd: dir.path,
        env: { CHATBATCH_API_KEY: 'sk-test-0123456789' },
      },
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--resume carries on the earlier run in --out and --force discards it: give one of them');
    expect(both.stderr).not.toContain('does not exist');
  });
});
