import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Redactor } from '../../src/record/redactor.js';
import { checkReply } from '../../src/reply/reply-check.js';
import { loadReplySchema, ReplySchemaError } from '../../src/reply/reply-schema.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';

/** No run's secrets: what these tests read holds none. */
const NO_SECRETS = new Redactor();

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await dir.remove();
});

const schemaFile = async (schema: unknown) => dir.write('schema.json', typeof schema === 'string' ? schema : JSON.stringify(schema));

describe('loadReplySchema', () => {
  it('reads draft 2020-12 (declared, or no $schema) with its own keywords', async () => {
    const tuple = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false };
    for (const schema of [tuple, { $schema: 'https://json-schema.org/draft/2020-12/schema', ...tuple }]) {
      const loaded = await loadReplySchema(await schemaFile(schema));
      expect(loaded.problems(['a', 1])).toBeNull();
      expect(loaded.problems(['a', 1, 'extra'])).toContain('must NOT have more than 2 items');
    }
  });

  it('reads draft-07 by its $schema, with draft-07 keywords (items as a list) that 2020-12 refuses', async () => {
    const tuple = { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false };
    const loaded = await loadReplySchema(await schemaFile({ $schema: 'http://json-schema.org/draft-07/schema#', ...tuple }));
    expect(loaded.problems(['a', 1])).toBeNull();
    expect(loaded.problems(['a', 'b'])).toContain('/1 must be number');
    await expect(loadReplySchema(await schemaFile(tuple))).rejects.toThrow(/does not compile \(draft 2020-12\)/);
  });

  it('reads draft 2019-09 by its $schema', async () => {
    const loaded = await loadReplySchema(
      await schemaFile({ $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object', dependentRequired: { a: ['b'] } }),
    );
    expect(loaded.problems({ a: 1, b: 2 })).toBeNull();
    expect(loaded.problems({ a: 1 })).toContain('must have property b when property a is present');
  });

  it('gives the top-level properties in the file order, for the CSV columns', async () => {
    const loaded = await loadReplySchema(await schemaFile({ type: 'object', properties: { zeta: {}, alpha: {}, mid: {} } }));
    expect(loaded.properties).toEqual(['zeta', 'alpha', 'mid']);
  });

  it('takes format as an annotation: a schema with formats compiles and does not check them', async () => {
    const loaded = await loadReplySchema(await schemaFile({ type: 'object', properties: { email: { type: 'string', format: 'email' } } }));
    expect(loaded.problems({ email: 'not an email' })).toBeNull();
  });

  it.each([
    ['a file that is not there', null, /cannot read the reply schema .*schema\.json \(ENOENT\)/],
    ['a file that is not JSON', '{"type": ', /the reply schema .*schema\.json is not JSON/],
    ['a list', [1], /must hold a JSON Schema \(an object\)/],
    [
      'an unsupported $schema',
      { $schema: 'http://json-schema.org/draft-04/schema#' },
      /declares "\$schema": "http:\/\/json-schema.org\/draft-04\/schema#"; accepted: draft 2020-12, draft 2019-09, draft-07/,
    ],
    [
      'a misspelt keyword',
      { type: 'object', requried: ['a'] },
      /does not compile \(draft 2020-12\): strict mode: unknown keyword: "requried"/,
    ],
    ['a wrong type name', { type: 'text' }, /does not compile .*must be equal to one of the allowed values/],
    ['a reference to nowhere', { $ref: '#/$defs/missing' }, /does not compile .*can't resolve reference #\/\$defs\/missing/],
  ])('refuses %s, naming the file', async (_name, content, message) => {
    const file = content === null ? dir.file('schema.json') : await schemaFile(content);
    const error = await loadReplySchema(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReplySchemaError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain(dir.file('schema.json'));
  });
});

describe('checkReply', () => {
  it('describes every violation as path and message on one bounded line', async () => {
    const schema = await loadReplySchema(
      await schemaFile({
        type: 'object',
        required: ['label', 'score'],
        additionalProperties: false,
        properties: {
          label: { enum: ['positive', 'negative'] },
          score: { type: 'number', maximum: 1 },
          tags: { type: 'array', items: { type: 'string' } },
        },
      }),
    );
    const checked = checkReply('{"label": "great", "tags": ["a", 2], "extra": true}', 'stop', schema, NO_SECRETS);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.message).toBe(
      `the reply does not match ${dir.file('schema.json')}: (root) must have required property 'score'; (root) must NOT have additional properties: "extra"; ` +
        '/label must be equal to one of the allowed values: "positive", "negative"; /tags/1 must be string',
    );
    const many = checkReply(
      JSON.stringify({ label: 'positive', score: 0, tags: Array.from({ length: 500 }, (_, i) => i) }),
      null,
      schema,
      NO_SECRETS,
    );
    expect(many.ok).toBe(false);
    if (!many.ok) {
      expect(many.message.length).toBeLessThan(800);
      expect(many.message).toMatch(/and \d+ more$/);
    }
  });

  it('says when the reply was cut off at the token limit', () => {
    const checked = checkReply('{"label": "pos', 'length', null, NO_SECRETS);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.message).toContain('finish_reason "length": the reply was cut off at the token limit');
  });

  it('gives the parsed value as data when there is no schema', () => {
    expect(checkReply('```json\n{"a": 1}\n```', 'stop', null, NO_SECRETS)).toEqual({ ok: true, data: { a: 1 } });
  });
});
