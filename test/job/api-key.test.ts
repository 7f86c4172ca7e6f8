import { mkdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chooseKeySource, type KeyPlaces, MAX_KEY_FILE_BYTES, readKeyFrom } from '../../src/job/api-key.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';

describe('chooseKeySource: flags, then CHATBATCH_API_KEY_FILE, then the job, then CHATBATCH_API_KEY', () => {
  const cases: Array<[string, KeyPlaces, KeyPlaces, Record<string, string>, { variable: string | null; file: string | null }]> = [
    ['nothing named', {}, {}, {}, { variable: 'CHATBATCH_API_KEY', file: null }],
    ['the job names a variable', {}, { variable: 'JOB_KEY' }, {}, { variable: 'JOB_KEY', file: null }],
    ['the job names a file', {}, { file: 'secrets/key' }, { CHATBATCH_API_KEY: 'k' }, { variable: null, file: 'secrets/key' }],
    [
      'the environment names a file',
      {},
      { variable: 'JOB_KEY' },
      { CHATBATCH_API_KEY_FILE: '/run/secrets/key' },
      { variable: null, file: '/run/secrets/key' },
    ],
    [
      'an empty CHATBATCH_API_KEY_FILE names nothing',
      {},
      {},
      { CHATBATCH_API_KEY_FILE: ' ' },
      { variable: 'CHATBATCH_API_KEY', file: null },
    ],
    [
      '--api-key-file',
      { file: 'k.txt' },
      { file: 'other' },
      { CHATBATCH_API_KEY_FILE: '/run/secrets/key' },
      { variable: null, file: 'k.txt' },
    ],
    [
      '--api-key-env',
      { variable: 'FLAG_KEY' },
      { file: 'other' },
      { CHATBATCH_API_KEY_FILE: '/run/secrets/key' },
      { variable: 'FLAG_KEY', file: null },
    ],
  ];
  it.each(cases)('%s', (_name, flags, job, env, expected) => {
    const problems: string[] = [];
    expect(chooseKeySource(flags, job, env, problems)).toEqual(expected);
    expect(problems).toEqual([]);
  });

  it.each([
    ['both flags', { file: 'a', variable: 'B' }, {}, {}, 'give --api-key-file or --api-key-env, not both'],
    ['both job keys', {}, { file: 'a', variable: 'B' }, {}, 'the job gives both api_key_file and api_key_env: keep one'],
    [
      'both variables',
      {},
      {},
      { CHATBATCH_API_KEY_FILE: '/k', CHATBATCH_API_KEY: 'sk' },
      'CHATBATCH_API_KEY_FILE and CHATBATCH_API_KEY are both set: unset one',
    ],
  ] as Array<[string, KeyPlaces, KeyPlaces, Record<string, string>, string]>)('refuses %s', (_name, flags, job, env, problem) => {
    const problems: string[] = [];
    chooseKeySource(flags, job, env, problems);
    expect(problems).toEqual([expect.stringContaining(problem)]);
  });
});

describe('readKeyFrom a file', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    await dir.remove();
  });
  const read = (file: string, optional = false) => readKeyFrom({ variable: null, file }, { env: {}, cwd: dir.path, optional });

  it.each([
    ['a key and a newline', 'sk-file-key-123\n'],
    ['a key saved with CRLF', 'sk-file-key-123\r\n'],
    ['a BOM and spaces', '\ufeff  sk-file-key-123  \n'],
  ])('trims %s', async (_name, content) => {
    await dir.write('key', content);
    expect(read('key')).toEqual({ key: 'sk-file-key-123', problem: null });
  });

  it('reads a path relative to the working directory', async () => {
    await mkdir(dir.file('secrets'));
    await dir.write('secrets/key', 'sk-nested\n');
    expect(read('secrets/key').key).toBe('sk-nested');
  });

  it.each([
    ['missing', async () => {}, 'cannot read the API key file key: does not exist (ENOENT)'],
    ['a folder', async () => void (await mkdir(dir.file('key'))), 'cannot read the API key file key: it is a folder'],
    [
      'too large',
      async () => void (await dir.write('key', 'x'.repeat(MAX_KEY_FILE_BYTES + 1))),
      `cannot read the API key file key: it holds ${MAX_KEY_FILE_BYTES + 1} bytes`,
    ],
    ['empty', async () => void (await dir.write('key', '')), 'the API key file key is empty: write the key in it'],
    ['only whitespace', async () => void (await dir.write('key', ' \r\n')), 'the API key file key is empty (only whitespace)'],
    [
      'two lines',
      async () => void (await dir.write('key', 'sk-one\nsk-two\n')),
      'the API key in the file key has a character that cannot be sent in an HTTP header (U+000A at position 7 of 13); leave only the key in key',
    ],
  ])('refuses a key file that is %s, naming the path and never the content', async (_name, make, problem) => {
    await make();
    const result = read('key');
    expect(result.key).toBe('');
    expect(result.problem).toContain(problem);
    expect(result.problem).not.toContain('sk-');
  });

  it('needs no readable file when no key is needed (a dry run, the simulator), but still refuses a malformed key', async () => {
    expect(read('missing', true)).toEqual({ key: '', problem: null });
    await dir.write('key', 'a\u0001b');
    expect(read('key', true).problem).toContain('U+0001');
  });
});
