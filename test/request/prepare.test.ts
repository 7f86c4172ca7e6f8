import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inShard, parseShard, type Shard } from '../../src/input/shard.js';
import { BatchNotes } from '../../src/request/batch-notes.js';
import { clientRequestIdBase } from '../../src/request/client-request-id.js';
import {
  forTarget,
  NUL_ID_PROBLEM,
  type PreparedRow,
  type PrepareSettings,
  preparedBatches,
  prepareRowKeys,
  prepareRows,
} from '../../src/request/prepare.js';
import { SeenIds } from '../../src/state/seen-ids.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';

const settings: PrepareSettings = {
  idField: null,
  system: null,
  template: null,
  rowParams: false,
  shard: null,
  baseUrl: 'https://api.example.test/v1',
  model: 'm',
  params: {},
};

async function prepared(files: string[], overrides: Partial<PrepareSettings> = {}): Promise<PreparedRow[]> {
  const rows: PreparedRow[] = [];
  for await (const row of prepareRows(files, { ...settings, ...overrides }, new BatchNotes(['m']))) rows.push(row);
  return rows;
}

function oneModel(sample: number | undefined) {
  return { models: ['m'], modelIndex: 0, sample };
}

describe('prepareRows: the one path from rows to requests', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(() => dir.remove());

  it('preparedBatches gives the rows prepareRows does, each prepared only once it is reached', async () => {
    const lines = Array.from({ length: 50 }, (_, i) => (i === 7 ? '{"id":"r3","prompt":"again"}' : `{"id":"r${i}","prompt":"p${i}"}`));
    const file = await dir.write('in.jsonl', lines.join('\n'));
    const seen = new SeenIds();
    const rows: PreparedRow[] = [];
    for await (const batch of preparedBatches([file], settings, new BatchNotes(['m']), seen)) {
      for (const row of batch) {
        rows.push(row);
        // A row's id is taken (for duplicates) as the row is prepared, not before: a lane that stops takes none ahead.
        expect(seen.size).toBe(rows.filter((prepared) => prepared.kind === 'task').length);
      }
    }
    expect(rows).toEqual(await prepared([file]));
    expect(rows[7]).toMatchObject({ kind: 'invalid', origin: { id: 'r3', line: 8 } });
  });

  it('prepareRowKeys gives each row the key and kind prepareRows does, building no request', async () => {
    const file = await dir.write(
      'in.jsonl',
      [
        '{"id":"a","prompt":"hi"}',
        '{"id":"b"',
        '{"id":"a","prompt":"again"}',
        '{"id":"c","name":"x"}',
        '{"id":"n\\u0000x","prompt":"nul"}',
        '{"id":"d","prompt":"ok"}',
        ...Array.from({ length: 20 }, (_, i) => `{"id":"s${i}","prompt":"p"}`),
      ].join('\n'),
    );
    const shard = parseShard('1/3');
    // What a check for dropped rows reads of a row: another shard's, an id it cannot key, or its key.
    const seenAs = (row: { kind: string; key?: string; problem?: string }) =>
      row.kind === 'other-shard' ? 'other-shard' : row.problem === NUL_ID_PROBLEM ? 'nul' : `key ${row.key}`;
    for (const overrides of [{}, { models: ['m', 'n'] }, { shard }] as Partial<PrepareSettings>[]) {
      const keys: string[] = [];
      for await (const row of prepareRowKeys([file], { ...settings, ...overrides })) keys.push(seenAs(row));
      expect(keys).toEqual((await prepared([file], overrides)).map(seenAs));
      expect(keys).toContain(overrides.shard ? 'other-shard' : `key dup:${file}:3`);
      if (overrides.models) expect(keys).toContain('nul');
    }
  });

  it('yields a task per good row and an invalid row, with its file, line and problem, for each bad one', async () => {
    const file = await dir.write(
      'in.jsonl',
      ['{"id":"a","prompt":"hi"}', '{"id":"b"', '{"id":"a","prompt":"again"}', '{"id":"c","name":"x"}', '{"id":"d","prompt":"ok"}'].join(
        '\n',
      ),
    );
    const rows = await prepared([file]);
    expect(rows.map((row) => row.kind)).toEqual(['task', 'invalid', 'invalid', 'invalid', 'task']);
    const [a, bad, duplicate, noPrompt, d] = rows as [PreparedRow, PreparedRow, PreparedRow, PreparedRow, PreparedRow];
    if (a.kind !== 'task' || d.kind !== 'task') throw new Error('expected tasks');
    expect(a.task).toMatchObject({ id: 'a', key: 'a', file, line: 1, position: -1 });
    expect(JSON.parse(a.task.request.body)).toEqual({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(a.fingerprint).toBe(a.task.request.fingerprint);
    expect(bad).toMatchObject({ kind: 'invalid', origin: { file, line: 2 } });
    // A duplicate gets a key of its own, so it never takes the first row's journal entry.
    expect(duplicate).toMatchObject({
      kind: 'invalid',
      key: `dup:${file}:3`,
      origin: { id: 'a', line: 3 },
      problem: 'duplicate id "a": an earlier row has the same id',
    });
    expect(noPrompt).toMatchObject({ kind: 'invalid', key: 'c', origin: { line: 4 } });
    expect(d.task.line).toBe(5);
  });

  it('takes ids from idField and fills the template', async () => {
    const file = await dir.write('in.csv', 'sku,name\nS1,lamp\n');
    const [row] = await prepared([file], { idField: 'sku', template: 'Describe {{name}}', system: 'Be brief' });
    if (row?.kind !== 'task') throw new Error('expected a task');
    expect(row.key).toBe('S1');
    expect(JSON.parse(row.task.request.body).messages).toEqual([
      { role: 'system', content: 'Be brief' },
      { role: 'user', content: 'Describe lamp' },
    ]);
  });

  it('yields the rows of other shards as such, and each row in exactly one of N shards', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `r${i}`);
    const file = await dir.write('in.jsonl', ids.map((id) => JSON.stringify({ id, prompt: id })).join('\n'));
    const taken: string[] = [];
    for (const k of [0, 1, 2]) {
      const shard = parseShard(`${k}/3`) as Shard;
      for (const row of await prepared([file], { shard })) {
        if (row.kind === 'other-shard') expect(inShard(row.origin.id, shard)).toBe(false);
        else if (row.kind === 'task') taken.push(row.key);
      }
    }
    expect(taken.sort()).toEqual([...ids].sort());
  });

  it('gives each sample its own key, fingerprint, request id and position; the row itself without samples', async () => {
    const file = await dir.write('in.jsonl', '{"id":"a","prompt":"hi"}\n{"id":"b"\n');
    const [task, invalid] = (await prepared([file])) as [
      Exclude<PreparedRow, { kind: 'other-shard' }>,
      Exclude<PreparedRow, { kind: 'other-shard' }>,
    ];
    const one = forTarget(task, oneModel(undefined), 7);
    const s0 = forTarget(task, oneModel(0), 8);
    const s1 = forTarget(task, oneModel(1), 9);
    if (one.kind !== 'task' || s0.kind !== 'task' || s1.kind !== 'task') throw new Error('expected tasks');
    expect(one).toMatchObject({ key: 'a', fingerprint: task.fingerprint, task: { position: 7 } });
    expect(one.task.sample).toBeUndefined();
    expect([s0.key, s1.key]).toEqual(['a#0', 'a#1']);
    expect(new Set([task.fingerprint, s0.fingerprint, s1.fingerprint]).size).toBe(3);
    expect(s0.task.request.fingerprint).toBe(s0.fingerprint);
    expect(s0.task.request.body).toBe(task.kind === 'task' ? task.task.request.body : '');
    expect(clientRequestIdBase(s0.task)).not.toBe(clientRequestIdBase(s1.task));
    expect(s1.task).toMatchObject({ sample: 1, position: 9 });
    expect(forTarget(invalid, oneModel(1), 10)).toMatchObject({ kind: 'invalid', key: `${invalid.key}#1`, sample: 1 });
  });

  it('sends a row to each model: the first keeps the row key, each other its own key, body and fingerprint', async () => {
    const file = await dir.write('in.jsonl', '{"id":"a","prompt":"hi"}\n{"id":"b"\n');
    const models = ['m', 'other/model'];
    const [task, invalid] = (await prepared([file], { models })) as [
      Exclude<PreparedRow, { kind: 'other-shard' }>,
      Exclude<PreparedRow, { kind: 'other-shard' }>,
    ];
    const first = forTarget(task, { models, modelIndex: 0, sample: undefined }, 0);
    const second = forTarget(task, { models, modelIndex: 1, sample: undefined }, 1);
    const secondSample = forTarget(task, { models, modelIndex: 1, sample: 1 }, 2);
    if (first.kind !== 'task' || second.kind !== 'task' || secondSample.kind !== 'task') throw new Error('expected tasks');
    expect(first.key).toBe('a');
    expect(first.task.model).toBe('m');
    expect(JSON.parse(first.task.request.body).model).toBe('m');
    expect(second.key).toBe('a\u0000other/model');
    expect(second.task).toMatchObject({ model: 'other/model', position: 1, id: 'a' });
    expect(JSON.parse(second.task.request.body)).toEqual({ ...JSON.parse(first.task.request.body), model: 'other/model' });
    expect(second.fingerprint).not.toBe(first.fingerprint);
    expect(secondSample.key).toBe('a\u0000other/model#1');
    expect(new Set([first.fingerprint, second.fingerprint, secondSample.fingerprint]).size).toBe(3);
    expect(forTarget(invalid, { models, modelIndex: 1, sample: undefined }, 3)).toMatchObject({
      kind: 'invalid',
      key: `${invalid.key}\u0000other/model`,
      model: 'other/model',
    });
  });
});
