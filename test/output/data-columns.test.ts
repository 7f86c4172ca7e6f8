import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dataCells, dataColumnNames, MAX_DATA_COLUMNS, scanReplyData } from '../../src/output/data-columns.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await dir.remove();
});

describe('scanReplyData', () => {
  it(`gives at most ${MAX_DATA_COLUMNS} data columns, the schema's first, however many keys the replies bring`, async () => {
    const data = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, i]));
    await dir.write(
      'output.jsonl',
      jsonlOf([
        { id: 'a', data },
        { id: 'b', reply: 'no data here' },
      ]),
    );
    await dir.write('errors.jsonl', '');
    const columns = await scanReplyData(dir.file('output.jsonl'), dir.file('errors.jsonl'), ['first']);
    expect(columns.fields).toHaveLength(MAX_DATA_COLUMNS);
    expect(columns.fields.slice(0, 3)).toEqual(['first', 'k0', 'k1']);
    expect(columns).toMatchObject({ whole: false, replyText: false });
    expect(dataColumnNames(columns).slice(0, 2)).toEqual(['data.first', 'data.k0']);
    expect(dataCells(data, columns).slice(0, 3)).toEqual(['', 0, 1]);
  });

  it('ignores a reply whose text merely mentions "data": only a record\'s own key counts', async () => {
    await dir.write('output.jsonl', jsonlOf([{ id: 'a', reply: '{"data": 1}' }]));
    await dir.write('errors.jsonl', jsonlOf([{ id: 'b', message: 'x', reply: null }]));
    expect(await scanReplyData(dir.file('output.jsonl'), dir.file('errors.jsonl'))).toEqual({
      fields: [],
      whole: false,
      replyText: false,
      correct: false,
    });
  });
});
