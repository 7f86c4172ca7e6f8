import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Manifest, RunSession } from '../../src/output/manifest.js';
import { emptyUsage } from '../../src/record/usage-totals.js';
import { countKilledSession } from '../../src/run/killed-session.js';
import { JournalWriter } from '../../src/state/journal.js';
import { headerLineText } from '../../src/state/journal-lines.js';
import { journalHeader } from '../../src/state/journal-recovery.js';
import { paidField } from '../../src/state/journal-usage.js';
import { perTestDir } from '../support/per-test.js';
import type { TempDir } from '../support/temp-dir.js';

let dir: TempDir;
perTestDir((fresh) => (dir = fresh));

const usage = (prompt: number, completion: number) => ({
  ...emptyUsage(),
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  responses_with_usage: 1,
});
const priced = (usd: number, prompt: number, completion: number) => ({ usd, prompt, cached: 0, completion });

/** A killed session's manifest: its figures cover the journal up to `bytes`. */
function killedManifest(bytes: number, journal: string | null = null, usd: number | null = 0.01): Manifest {
  const session = {
    status: 'running',
    usage: usage(100, 10),
    cost_usd: usd,
    cost_by_model: { m: { usd, prompt_tokens: 100, cached_tokens: 0, completion_tokens: 10 } },
    usage_journal: { journal, bytes },
  } as unknown as RunSession;
  return {
    status: 'running',
    sessions: [{ status: 'complete', usage: usage(1, 1), cost_usd: 0.5 } as unknown as RunSession, session],
    usage: usage(101, 11),
    cost: { usd: usd === null ? null : 0.51, by_model: { m: { usd: usd === null ? null : 0.51 } } },
    judge: { usage: emptyUsage(), cost: { usd: 0 } },
  } as unknown as Manifest;
}

/**
 * A journal whose lines paid what `paid` says, a line each (null: a line that paid nothing; a
 * number: the dollars of the usage its record carries); the offset after the first `upTo`.
 */
async function journalOf(paid: Array<unknown[] | number | null>, upTo: number): Promise<{ file: string; mark: number }> {
  const file = dir.file('journal.jsonl');
  const writer = await JournalWriter.open(file);
  let mark = 0;
  for (const [index, part] of paid.entries()) {
    const u = part === null ? {} : { u: typeof part === 'number' ? part : [part] };
    const record = { id: 'x', model: 'm', usage: { prompt_tokens: 7, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 2 } } };
    await writer.append({ k: `r${index}`, f: 'fp', o: 1, ...u }, JSON.stringify(record));
    if (index + 1 === upTo) mark = writer.bytes;
  }
  await writer.close();
  return { file, mark };
}

/** countKilledSession given the journal's header as a start reads it. */
async function countedWithHeader(manifest: Manifest, file: string): Promise<number> {
  return countKilledSession(manifest, file, await journalHeader(file));
}

describe('countKilledSession', () => {
  it("adds the lines after the mark to the killed session's figures and the directory's, the judge's apart, once", async () => {
    const { file, mark } = await journalOf(
      [
        paidField('m', usage(100, 10), priced(0.01, 100, 10)),
        paidField('m', usage(7, 3), priced(0.002, 7, 3)),
        null,
        paidField('\u0000judge', usage(50, 5), priced(0.004, 50, 5)),
      ],
      1,
    );
    const manifest = killedManifest(mark);
    expect(await countedWithHeader(manifest, file)).toBe(2);
    const session = manifest.sessions[1]!;
    expect(session.usage).toMatchObject({ prompt_tokens: 107, completion_tokens: 13, total_tokens: 120, responses_with_usage: 2 });
    expect(manifest.usage).toMatchObject({ prompt_tokens: 108, total_tokens: 122, responses_with_usage: 2 });
    expect(session.cost_by_model!.m).toEqual({ usd: 0.012, prompt_tokens: 107, cached_tokens: 0, completion_tokens: 13 });
    expect(session.cost_usd).toBeCloseTo(0.016, 12);
    expect(manifest.cost!.usd).toBeCloseTo(0.516, 12);
    expect(manifest.cost!.by_model.m!.usd).toBeCloseTo(0.512, 12);
    expect(manifest.judge!.usage).toMatchObject({ prompt_tokens: 50, total_tokens: 55 });
    expect(manifest.judge!.cost.usd).toBeCloseTo(0.004, 12);
    // The mark is gone: a second resume (or a third) adds nothing more.
    expect(session.usage_journal).toBeUndefined();
    expect(await countedWithHeader(manifest, file)).toBe(0);
    expect(manifest.usage!.total_tokens).toBe(122);
  });

  it("reads a line's one response from its record's usage when the line gives only its dollars", async () => {
    const { file, mark } = await journalOf([null, 0.002, 0.002], 1);
    const manifest = killedManifest(mark);
    expect(await countedWithHeader(manifest, file)).toBe(2);
    expect(manifest.sessions[1]!.usage).toMatchObject({ prompt_tokens: 114, completion_tokens: 16, total_tokens: 130, cached_tokens: 4 });
    expect(manifest.sessions[1]!.usage!.responses_with_usage).toBe(3);
    expect(manifest.sessions[1]!.cost_by_model!.m).toEqual({ usd: 0.014, prompt_tokens: 114, cached_tokens: 4, completion_tokens: 16 });
    expect(manifest.cost!.usd).toBeCloseTo(0.514, 12);
  });

  it('keeps an unknown price unknown, and skips a line that does not verify', async () => {
    const { file, mark } = await journalOf(
      [null, paidField('m', usage(7, 3), priced(0, 7, 3)), paidField('m', usage(9, 1), priced(0, 9, 1))],
      1,
    );
    const text = await dir.read('journal.jsonl');
    await writeFile(file, text.replace('"m",9,1,10,', '"m",9,2,10,'));
    const manifest = killedManifest(mark, null, null);
    expect(await countedWithHeader(manifest, file)).toBe(1);
    expect(manifest.sessions[1]!.usage!.total_tokens).toBe(120);
    expect(manifest.sessions[1]!.cost_usd).toBeNull();
    expect(manifest.sessions[1]!.cost_by_model!.m).toEqual({ usd: null, prompt_tokens: 107, cached_tokens: 0, completion_tokens: 13 });
    expect(manifest.cost!.usd).toBeNull();
  });

  it('adds nothing when the journal is not the one the mark is in (replaced as the session ended), or there is no mark', async () => {
    const { file, mark } = await journalOf([paidField('m', usage(7, 3), priced(0.002, 7, 3))], 0);
    const header = headerLineText({ journal: 2, output: '.output.jsonl.1.1.0a0b0c0d.tmp', errors: '.errors.jsonl.1.1.0a0b0c0d.tmp' });
    const lines = await dir.read('journal.jsonl');
    await writeFile(file, header + lines);
    // The manifest's mark is in a journal without a header; this one was written by a session's end.
    const replaced = killedManifest(mark);
    expect(await countedWithHeader(replaced, file)).toBe(0);
    expect(replaced.usage!.total_tokens).toBe(112);
    expect(replaced.sessions[1]!.usage_journal).toBeUndefined();
    // The same journal, named by the mark: counted.
    const same = killedManifest(Buffer.byteLength(header), '.output.jsonl.1.1.0a0b0c0d.tmp');
    expect(await countedWithHeader(same, file)).toBe(1);
    expect(same.usage!.total_tokens).toBe(122);
    // A manifest an older chatbatch wrote (no mark): as before, nothing is added.
    const older = killedManifest(0);
    delete older.sessions[1]!.usage_journal;
    expect(await countedWithHeader(older, file)).toBe(0);
    expect(older.usage!.total_tokens).toBe(112);
  });

  it('counts what it can of a hand-edited manifest whose figures are not shaped as written, and throws nothing', async () => {
    const { file, mark } = await journalOf(
      [null, paidField('m', usage(7, 3), priced(0.002, 7, 3)), paidField('\u0000judge', usage(50, 5), priced(0.004, 50, 5))],
      1,
    );
    const edits: Array<(manifest: Record<string, unknown>, session: Record<string, unknown>) => void> = [
      (manifest) => (manifest.cost = 'n/a'),
      (manifest) => (manifest.judge = {}),
      (manifest) => (manifest.judge = { usage: 3, cost: 'free' }),
      (manifest) => (manifest.cost = { usd: 0.51, by_model: { m: 5 } }),
      (manifest) => (manifest.cost = { usd: 0.51, by_model: 'm' }),
      (_, session) => (session.cost_by_model = 'x'),
      (_, session) => (session.cost_by_model = { m: 7 }),
    ];
    for (const edit of edits) {
      const manifest = killedManifest(mark);
      edit(manifest as unknown as Record<string, unknown>, manifest.sessions[1] as unknown as Record<string, unknown>);
      expect(await countedWithHeader(manifest, file)).toBe(2);
      // The tokens are counted whatever the edit: they are in no field it touched.
      expect(manifest.usage!.total_tokens).toBe(122);
      expect(manifest.sessions[1]!.usage!.total_tokens).toBe(120);
      expect(manifest.sessions[1]!.cost_usd).toBeCloseTo(0.016, 12);
    }
  });

  it('adds a model named like a property every object has (`__proto__`) to its own figures, never to every object', async () => {
    const { file, mark } = await journalOf([null, paidField('__proto__', usage(7, 3), priced(0.002, 7, 3))], 1);
    const manifest = killedManifest(mark);
    try {
      expect(await countedWithHeader(manifest, file)).toBe(1);
      expect(({} as { usd?: unknown }).usd).toBeUndefined();
      expect(Object.hasOwn(manifest.sessions[1]!.cost_by_model!, '__proto__')).toBe(true);
      // A model the session's figures did not name: its tokens, priced by whoever knows its price.
      expect(Object.getOwnPropertyDescriptor(JSON.parse(JSON.stringify(manifest.sessions[1]!.cost_by_model)), '__proto__')?.value).toEqual({
        usd: null,
        prompt_tokens: 7,
        cached_tokens: 0,
        completion_tokens: 3,
      });
    } finally {
      delete (Object.prototype as { usd?: unknown }).usd;
    }
  });
});
