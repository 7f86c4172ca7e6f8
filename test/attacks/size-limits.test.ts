import { statSync } from 'node:fs';
import { stat, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../src/index.js';
import { resolveRunConfig } from '../../src/job/config.js';
import { MAX_REPEAT } from '../../src/job/options.js';
import { renderHtmlReport } from '../../src/report/html-report.js';
import { markAgreement, readViewRows, type ViewRow } from '../../src/report/rows-view.js';
import { computeStats } from '../../src/report/stats.js';
import { JournalWriter, readJournal } from '../../src/state/journal.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => dir.remove());

const flags = (extra: Record<string, unknown>) => ({
  inputs: ['in.jsonl'],
  model: 'm',
  baseUrl: 'http://127.0.0.1:9/v1',
  out: 'out',
  ...extra,
});

describe('--repeat has an upper bound', () => {
  it(`takes ${MAX_REPEAT}, and refuses more before anything is sent (exit 2), naming the bound`, async () => {
    const context = { env: { CHATBATCH_API_KEY: 'k' }, cwd: dir.path };
    expect(resolveRunConfig(flags({ repeat: MAX_REPEAT }), null, context).repeat).toBe(MAX_REPEAT);
    for (const repeat of [MAX_REPEAT + 1, 2 ** 32]) {
      expect(() => resolveRunConfig(flags({ repeat }), null, context)).toThrow(
        new RegExp(`--repeat: at most ${MAX_REPEAT}, got ${repeat}`),
      );
    }
    const input = await dir.write('in.jsonl', '{"prompt":"x"}\n');
    await expect(run({ ...flags({ repeat: 10 ** 9 }), inputs: [input], apiKey: 'k', out: dir.file('out') })).rejects.toThrow(
      /--repeat: at most/,
    );
  });
});

describe('the journal writes what a turn gathers in bounded chunks', () => {
  it('writes before the turn ends once the gathered lines pass the bound, and every line verifies', async () => {
    const file = dir.file('journal.jsonl');
    const writer = await JournalWriter.open(file, 100, 4096);
    const record = JSON.stringify({ reply: 'x'.repeat(1000) });
    const appends = Array.from({ length: 50 }, (_, i) => writer.append({ k: `r${i}`, f: 'f', o: 1 }, record));
    // Still in the same turn (statSync: an await would end it): without the bound nothing would be written yet.
    const written = statSync(file).size;
    expect(written).toBeGreaterThan(0);
    await Promise.all(appends);
    await writer.close();
    expect(written).toBeLessThan((await stat(file)).size);
    const keys: string[] = [];
    const read = await readJournal(file, (entry) => keys.push(entry.k));
    expect(read.damaged).toBe(0);
    expect(keys).toEqual(Array.from({ length: 50 }, (_, i) => `r${i}`));
  });
});

/** A record file of `count` records of one row's samples, each reply `reply(i)`. */
async function writeRecords(count: number, reply: (i: number) => string): Promise<void> {
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      id: `r${i % 3}`,
      file: 'in.jsonl',
      line: (i % 3) + 1,
      sample: i,
      reply: reply(i),
      status: 200,
      code: null,
      attempts: 1,
      started_at: '2026-01-01T00:00:00.000Z',
      duration_ms: 5,
    }),
  );
  await writeFile(dir.file('output.jsonl'), `${lines.join('\n')}\n`);
  await writeFile(dir.file('errors.jsonl'), '');
}

describe('report --html: the rows view has a documented cap and a text budget', () => {
  it('past maxRows lists no rows and says how many records it left out; the summary counts them all', async () => {
    await writeRecords(12, (i) => `reply ${i}`);
    const view = await readViewRows(dir.file('output.jsonl'), dir.file('errors.jsonl'), { maxRows: 10, pageChars: 1e6 });
    expect(view).toMatchObject({ rows: [], leftOut: 12 });
    const stats = await computeStats(dir.file('output.jsonl'), dir.file('errors.jsonl'));
    const page = renderHtmlReport({ ...stats, repeat: 4 }, 't', view);
    expect(page).toContain('12 records are more than this page lists');
  });

  it("cuts each text to the rows' share of the page, and says so", async () => {
    await writeRecords(12, (i) => `${i} ${'y'.repeat(2000)}`);
    const view = await readViewRows(dir.file('output.jsonl'), dir.file('errors.jsonl'), { maxRows: 100, pageChars: 12 * 4 * 300 });
    expect(view.textLimit).toBe(300);
    expect(view.rows).toHaveLength(12);
    for (const row of view.rows) expect(row.r!.length).toBe(301);
    const stats = await computeStats(dir.file('output.jsonl'), dir.file('errors.jsonl'));
    expect(renderHtmlReport({ ...stats, repeat: 4 }, 't', view)).toContain('Texts longer than 300 characters are cut in this page');
  });

  it("measures a row's agreement over any number of distinct samples (no spread onto the stack)", () => {
    const samples: Array<ViewRow & { answer: string }> = Array.from({ length: 150_000 }, (_, sample) => ({
      id: 'r',
      s: sample,
      ok: true,
      st: 200,
      cat: null,
      code: null,
      msg: null,
      att: 1,
      fr: null,
      tr: null,
      in: null,
      r: null,
      d: null,
      answer: `distinct ${sample % 75_000}`,
    }));
    markAgreement(samples);
    expect(samples[0]!.ag).toBeCloseTo(2 / 150_000);
  });
});
