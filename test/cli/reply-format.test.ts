import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { RESULT_COLUMNS } from '../support/csv-columns.js';
import { type ReceivedRequest, type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

// Replies as data (--reply-format json, --reply-schema, --reply-retries) through the built CLI
// against a scripted server that answers each prompt from a list: its nth request gets the nth
// answer (the last one once the list runs out).

interface Rec {
  id: string;
  reply: string | null;
  code: string | null;
  category?: string;
  message?: string;
  status: number | null;
  data?: unknown;
  reply_text?: string;
  attempts: number;
  usage?: unknown;
  cached?: boolean;
  history?: Array<{ code: string | null; wait_ms?: number }>;
}

const fence = '```';
/** In a script: answer this request with a 500. */
const SERVER_ERROR = '<500>';
let dir: TempDir;
let server: ScriptedServer;
let answers: Record<string, string[]>;

beforeEach(async () => {
  dir = await makeTempDir();
  answers = {};
  server = await startScriptedServer((request, response, index) => {
    const prompt = request.json?.messages?.at(-1)?.content ?? '';
    const script = answers[prompt] ?? ['plain text'];
    const content = script[Math.min(sentFor(prompt).length - 1, script.length - 1)]!;
    if (content === SERVER_ERROR) return sendJson(response, 500, { error: { code: 'server_error', message: 'try again' } });
    sendJson(response, 200, {
      id: `chatcmpl-${index}`,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
  });
});
afterEach(async () => {
  await server.close();
  await dir.remove();
});

function sentFor(prompt: string): ReceivedRequest[] {
  return server.received.filter((r) => r.json?.messages?.at(-1)?.content === prompt);
}

async function rows(script: Record<string, string[]>): Promise<void> {
  answers = script;
  await dir.write('in.jsonl', jsonlOf(Object.keys(script).map((prompt, i) => ({ id: `r${i}`, prompt }))));
}

const run = (...extra: string[]) =>
  runCli(['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--quiet', ...extra], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: 'sk-reply-format-test-key-0000' },
  });

const SENTIMENT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['label', 'score'],
  properties: { label: { enum: ['positive', 'negative', 'neutral'] }, score: { type: 'number', minimum: 0, maximum: 1 } },
};

const records = async (name: string) => dir.jsonl<Rec>(`out/${name}`);
const byId = async () => new Map([...(await records('output.jsonl')), ...(await records('errors.jsonl'))].map((r) => [r.id, r]));

describe('--reply-format json', () => {
  it('reads bare JSON, a ```json block and a bare ``` block with prose around it into data; the reply stays the text', async () => {
    const fenced = `Here is the result:\n\n${fence}json\n{"label": "negative", "score": 0.2}\n${fence}\nHope this helps.`;
    await rows({
      bare: ['{"label": "positive", "score": 0.9}'],
      fenced: [fenced],
      plain: [`${fence}\n[1, 2, {"three": 3}]\n${fence}`],
    });
    const result = await run('--reply-format', 'json');
    expect(result.code, result.stderr).toBe(0);
    const out = await byId();
    expect(out.get('r0')).toMatchObject({
      reply: '{"label": "positive", "score": 0.9}',
      data: { label: 'positive', score: 0.9 },
      code: null,
      attempts: 1,
    });
    expect(out.get('r1')).toMatchObject({ reply: fenced, data: { label: 'negative', score: 0.2 } });
    expect(out.get('r2')!.data).toEqual([1, 2, { three: 3 }]);
    expect(server.received).toHaveLength(3);
  });

  it('without it, a reply is text: no data, and a reply that is not JSON succeeds', async () => {
    await rows({ one: ['{"a": 1}'], two: ['not json'] });
    const result = await run();
    expect(result.code, result.stderr).toBe(0);
    const out = await byId();
    expect(out.get('r0')!.data).toBeUndefined();
    expect(out.get('r1')!.reply).toBe('not json');
  });

  it('a reply that is not JSON is sent again --reply-retries times, then fails as invalid_reply keeping its text, usage and history', async () => {
    await rows({ never: ['Sorry, I cannot answer in JSON.'], fine: ['{"a": 1}'] });
    const result = await run('--reply-format', 'json', '--reply-retries', '2');
    expect(result.code).toBe(1);
    expect(sentFor('never')).toHaveLength(3);
    expect(sentFor('fine')).toHaveLength(1);
    const failed = (await byId()).get('r0')!;
    expect(failed).toMatchObject({
      reply: null,
      status: 200,
      code: 'invalid_reply',
      category: 'invalid_reply',
      reply_text: 'Sorry, I cannot answer in JSON.',
      attempts: 3,
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
    expect(failed.message).toMatch(/^the reply is not JSON: Unexpected token/);
    expect(failed.data).toBeUndefined();
    expect(failed.history!.map((h) => h.code)).toEqual(['invalid_reply', 'invalid_reply', 'invalid_reply']);
    const manifest = JSON.parse(await dir.read('out/manifest.json')) as { counts: { by_category: Record<string, number> } };
    expect(manifest.counts.by_category).toEqual({ invalid_reply: 1 });
  });

  it('sends an invalid reply again once by default, and a later valid answer succeeds', async () => {
    await rows({ flaky: ['{"label": "positive",', '{"label": "positive", "score": 1}'], stubborn: ['nope'] });
    const result = await run('--reply-format', 'json');
    expect(result.code).toBe(1);
    expect(sentFor('flaky')).toHaveLength(2);
    expect(sentFor('stubborn')).toHaveLength(2);
    const out = await byId();
    expect(out.get('r0')).toMatchObject({ code: null, attempts: 2, data: { label: 'positive', score: 1 } });
    expect(out.get('r0')!.history!.map((h) => h.code)).toEqual(['invalid_reply', null]);
    expect(out.get('r1')).toMatchObject({ code: 'invalid_reply', attempts: 2 });
  });

  it('--reply-retries 0 sends each row once, and the re-sends do not use up --max-attempts', async () => {
    await rows({ bad: ['nope'] });
    expect((await run('--reply-format', 'json', '--reply-retries', '0')).code).toBe(1);
    expect(sentFor('bad')).toHaveLength(1);
    server.received.length = 0;
    expect((await run('--reply-format', 'json', '--reply-retries', '3', '--max-attempts', '1', '--force')).code).toBe(1);
    expect(sentFor('bad')).toHaveLength(4);
  });
  it('a server error after an invalid reply is still retried: the re-send did not spend one of --max-attempts', async () => {
    await rows({ mixed: ['nope', SERVER_ERROR, '{"a": 1}'] });
    const result = await run('--reply-format', 'json', '--max-attempts', '2');
    expect(result.code, result.stderr).toBe(0);
    const record = (await byId()).get('r0')!;
    expect(record).toMatchObject({ code: null, attempts: 3, data: { a: 1 } });
    expect(record.history!.map((h) => h.code)).toEqual(['invalid_reply', 'server_error', null]);
  });
});

describe('--reply-schema', () => {
  it('checks data against the schema: a violation is invalid_reply with a readable message; a match succeeds', async () => {
    await dir.write('schema.json', JSON.stringify(SENTIMENT_SCHEMA));
    await rows({
      good: ['{"label": "neutral", "score": 0.5}'],
      wrong: ['{"label": "great", "score": 7}'],
      missing: [`${fence}json\n{"label": "positive"}\n${fence}`],
    });
    const result = await run('--reply-schema', 'schema.json', '--reply-retries', '0');
    expect(result.code).toBe(1);
    const out = await byId();
    expect(out.get('r0')).toMatchObject({ code: null, data: { label: 'neutral', score: 0.5 } });
    expect(out.get('r1')).toMatchObject({
      code: 'invalid_reply',
      reply_text: '{"label": "great", "score": 7}',
      message:
        'the reply does not match schema.json: /label must be equal to one of the allowed values: "positive", "negative", "neutral"; /score must be <= 1',
    });
    expect(out.get('r2')!.message).toBe("the reply does not match schema.json: (root) must have required property 'score'");
  });

  it('a catastrophic pattern (^(a+)+$) against a 40-character reply is checked at once: the run finishes', async () => {
    // With a backtracking engine this row kept the process at 100% CPU past SIGTERM.
    const hostile = `${'a'.repeat(40)}!`;
    await dir.write('schema.json', JSON.stringify({ type: 'object', properties: { v: { type: 'string', pattern: '^(a+)+$' } } }));
    await rows({ hostile: [JSON.stringify({ v: hostile })], fine: ['{"v": "aaaa"}'] });
    const result = await run('--reply-schema', 'schema.json', '--reply-retries', '0');
    expect(result.code, result.stderr).toBe(1);
    const out = await byId();
    expect(out.get('r0')).toMatchObject({ code: 'invalid_reply', message: expect.stringContaining('/v must match pattern "^(a+)+$"') });
    expect(out.get('r1')).toMatchObject({ code: null, data: { v: 'aaaa' } });
  });

  it('a pattern the linear-time engine cannot run (a backreference, a lookahead) is exit 2 at start naming the schema and pattern', async () => {
    for (const pattern of [String.raw`^(a)\1$`, '^(?=a)a$']) {
      await dir.write('schema.json', JSON.stringify({ type: 'object', properties: { v: { type: 'string', pattern } } }));
      await rows({ one: ['{"v": "a"}'] });
      const result = await run('--reply-schema', 'schema.json');
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain('schema.json');
      expect(result.stderr).toContain(`pattern ${JSON.stringify(pattern)} cannot be checked in linear time`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(server.received).toHaveLength(0);
    }
  });

  it('a job reads reply_format, reply_schema (relative to the job file) and reply_retries', async () => {
    await dir.write('schema.json', JSON.stringify(SENTIMENT_SCHEMA));
    await rows({ wrong: ['{"label": "great", "score": 0}'] });
    const { mkdir, rename } = await import('node:fs/promises');
    await mkdir(dir.file('jobs'));
    await rename(dir.file('schema.json'), dir.file('jobs/schema.json'));
    await dir.write(
      'jobs/job.json',
      JSON.stringify({ inputs: ['../in.jsonl'], model: 'm', reply_format: 'json', reply_schema: 'schema.json', reply_retries: 2 }),
    );
    const result = await runCli(['run', '--job', 'jobs/job.json', '--base-url', server.baseUrl, '--out', 'out', '--quiet'], {
      cwd: dir.path,
      env: { CHATBATCH_API_KEY: 'sk-reply-format-test-key-0000' },
    });
    expect(result.code, result.stderr).toBe(1);
    expect(sentFor('wrong')).toHaveLength(3);
    expect((await byId()).get('r0')!.message).toContain(
      'the reply does not match jobs/schema.json: /label must be equal to one of the allowed values',
    );
  });

  it.each([
    ['is missing', null, 'cannot read the reply schema schema.json (ENOENT)'],
    ['is not JSON', '{"type": "object",', 'the reply schema schema.json is not JSON'],
    [
      'does not compile',
      '{"type": "object", "properties": {"a": {"type": "strnig"}}}',
      'the reply schema schema.json does not compile (draft 2020-12): schema is invalid: data/properties/a/type must be equal to one of the allowed values',
    ],
    [
      'declares an unsupported draft',
      '{"$schema": "http://json-schema.org/draft-04/schema#"}',
      'accepted: draft 2020-12, draft 2019-09, draft-07',
    ],
  ])('a schema file that %s stops the run with exit 2, naming it, before anything is sent or written', async (_name, content, message) => {
    if (content !== null) await dir.write('schema.json', content);
    await rows({ any: ['{}'] });
    const result = await run('--reply-schema', 'schema.json');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(server.received).toHaveLength(0);
    await expect(dir.read('out/manifest.json')).rejects.toThrow();
  });

  it('refuses a schema with --reply-format text, and an unknown format (exit 2)', async () => {
    await dir.write('schema.json', JSON.stringify(SENTIMENT_SCHEMA));
    await rows({ any: ['{}'] });
    const text = await run('--reply-schema', 'schema.json', '--reply-format', 'text');
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('a reply schema (schema.json) checks JSON replies');
    const unknown = await run('--reply-format', 'yaml');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/reply-format.*yaml/);
    expect(server.received).toHaveLength(0);
  });
});

describe('response_format', () => {
  it('is sent only when params ask for it, whatever --reply-format says; replies are checked either way', async () => {
    await rows({ one: ['{"label": "positive", "score": 0.5}'] });
    expect((await run('--reply-format', 'json')).code).toBe(0);
    expect(server.received[0]!.json).not.toHaveProperty('response_format');
    expect(Object.keys(server.received[0]!.json!)).toEqual(['model', 'messages']);

    const responseFormat = { type: 'json_schema', json_schema: { name: 'sentiment', schema: SENTIMENT_SCHEMA, strict: true } };
    await dir.write('job.json', JSON.stringify({ params: { response_format: responseFormat } }));
    await dir.write('schema.json', JSON.stringify(SENTIMENT_SCHEMA));
    answers.one = ['{"label": "bad"}'];
    server.received.length = 0;
    const result = await run('--job', 'job.json', '--reply-schema', 'schema.json', '--force', '--reply-retries', '0');
    expect(result.code).toBe(1);
    expect(server.received[0]!.json!.response_format).toEqual(responseFormat);
    expect((await byId()).get('r0')!.code).toBe('invalid_reply');
  });
});

describe('--format csv with JSON replies', () => {
  it("adds a data.<field> column per top-level field, the schema's properties first and in its order; nested values as compact JSON", async () => {
    const schema = { type: 'object', properties: { score: { type: 'number' }, label: { type: 'string' } } };
    await dir.write('schema.json', JSON.stringify(schema));
    await rows({
      a: ['{"label": "positive", "score": -0.5, "tags": ["x", "y"], "meta": {"k": 1}}'],
      b: ['{"label": "=1+1", "score": 0, "flag": true}'],
      c: ['not json'],
    });
    const result = await run('--reply-schema', 'schema.json', '--format', 'csv', '--reply-retries', '0');
    expect(result.code).toBe(1);
    const output = parse(await dir.read('out/output.csv'), { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(output[0]!)).toEqual([
      'id',
      'file',
      'line',
      ...RESULT_COLUMNS,
      'data.score',
      'data.label',
      'data.tags',
      'data.meta',
      'data.flag',
    ]);
    expect(output[0]).toMatchObject({
      'data.score': '-0.5',
      'data.label': 'positive',
      'data.tags': '["x","y"]',
      'data.meta': '{"k":1}',
      'data.flag': '',
    });
    // Formula escaping still applies to text, not to a negative number.
    expect(output[1]).toMatchObject({ 'data.score': '0', 'data.label': "'=1+1", 'data.flag': 'true', 'data.tags': '' });
    const errors = parse(await dir.read('out/errors.csv'), { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(errors[0]!).slice(-3)).toEqual(['category', 'message', 'reply_text']);
    expect(errors[0]).toMatchObject({ id: 'r2', category: 'invalid_reply', reply_text: 'not json' });
  });

  it('without a schema, the columns are the union of the keys seen, in first-seen order; a data column when data is not an object', async () => {
    await rows({ a: ['{"x": 1}'], b: ['{"y": 2, "x": 3}'], c: ['[1, 2]'] });
    expect((await run('--reply-format', 'json', '--format', 'csv')).code).toBe(0);
    const output = parse(await dir.read('out/output.csv'), { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(output[0]!).slice(-3)).toEqual(['data.x', 'data.y', 'data']);
    expect(output.map((r) => [r['data.x'], r['data.y'], r.data])).toEqual([
      ['1', '', '{"x":1}'],
      ['3', '2', '{"y":2,"x":3}'],
      ['', '', '[1,2]'],
    ]);
  });

  it('text replies keep the CSV as it was: no data columns, no reply_text', async () => {
    await rows({ a: ['{"x": 1}'] });
    expect((await run('--format', 'csv')).code).toBe(0);
    expect((await dir.read('out/output.csv')).split('\n')[0]).toBe('id,file,line,reply,status,code,duration_ms,trace_id,attempts');
    expect((await dir.read('out/errors.csv')).split('\n')[0]).toBe(
      'id,file,line,reply,status,code,duration_ms,trace_id,attempts,category,message',
    );
  });
});

describe('JSON replies with --cache and --resume', () => {
  it('the cache keeps only replies that passed; a hit is checked again, so a stricter schema sends again only what no longer passes', async () => {
    await dir.write('loose.json', JSON.stringify({ type: 'object' }));
    await dir.write('strict.json', JSON.stringify(SENTIMENT_SCHEMA));
    await rows({ good: ['{"label": "positive", "score": 0.1}'], partial: ['{"label": "positive"}'], bad: ['nope'] });
    expect((await run('--reply-schema', 'loose.json', '--cache', 'cache', '--reply-retries', '0')).code).toBe(1);
    expect(server.received).toHaveLength(3);

    // The same check: both passing replies come from the cache; the invalid one was not cached.
    server.received.length = 0;
    expect((await run('--reply-schema', 'loose.json', '--cache', 'cache', '--reply-retries', '0', '--force')).code).toBe(1);
    expect(server.received.map((r) => r.json!.messages!.at(-1)!.content)).toEqual(['bad']);
    expect((await byId()).get('r0')).toMatchObject({ cached: true, attempts: 0, data: { label: 'positive', score: 0.1 } });

    // A stricter schema: the cached reply that still passes is served, the other is sent again.
    server.received.length = 0;
    answers.partial = ['{"label": "negative", "score": 0.9}'];
    expect((await run('--reply-schema', 'strict.json', '--cache', 'cache', '--reply-retries', '0', '--force')).code).toBe(1);
    expect(server.received.map((r) => r.json!.messages!.at(-1)!.content).sort()).toEqual(['bad', 'partial']);
    const out = await byId();
    expect(out.get('r0')).toMatchObject({ cached: true, data: { label: 'positive', score: 0.1 } });
    expect(out.get('r1')).toMatchObject({ code: null, data: { label: 'negative', score: 0.9 } });
    expect(out.get('r1')!.cached).toBeUndefined();
  });

  it('--resume with a changed schema checks the invalid_reply rows again without sending; the same schema changes nothing', async () => {
    await dir.write(
      'schema.json',
      JSON.stringify({ ...SENTIMENT_SCHEMA, properties: { ...SENTIMENT_SCHEMA.properties, label: { enum: ['pos', 'neg'] } } }),
    );
    await rows({ a: ['{"label": "positive", "score": 0.5}'], b: ['{"label": "pos", "score": 0.5}'], c: ['not json'] });
    expect((await run('--reply-schema', 'schema.json', '--reply-retries', '0')).code).toBe(1);
    expect(server.received).toHaveLength(3);
    expect((await records('errors.jsonl')).map((r) => r.id)).toEqual(['r0', 'r2']);

    // The same schema: nothing is sent and the files stay as they were.
    const before = await Promise.all(['out/output.jsonl', 'out/errors.jsonl', 'out/manifest.json'].map((f) => dir.read(f)));
    server.received.length = 0;
    const same = await run('--reply-schema', 'schema.json', '--resume');
    expect(same.code).toBe(1);
    expect(same.stderr).not.toContain('checked again');
    expect(await Promise.all(['out/output.jsonl', 'out/errors.jsonl', 'out/manifest.json'].map((f) => dir.read(f)))).toEqual(before);

    // The schema's labels fixed: the kept reply passes now, with nothing sent.
    await dir.write('schema.json', JSON.stringify(SENTIMENT_SCHEMA));
    const fixed = await run('--reply-schema', 'schema.json', '--resume');
    expect(fixed.code).toBe(1);
    expect(server.received).toHaveLength(0);
    expect(fixed.stderr).toContain(
      "1 invalid_reply row(s) of an earlier session checked again against this run's reply format and schema, without sending: 1 now pass, 0 fail for another reason",
    );
    const out = await byId();
    expect(out.get('r0')).toMatchObject({
      code: null,
      reply: '{"label": "positive", "score": 0.5}',
      data: { label: 'positive', score: 0.5 },
      attempts: 1,
      status: 200,
    });
    expect(out.get('r0')!.reply_text).toBeUndefined();
    expect(out.get('r0')!.message).toBeUndefined();
    expect(out.get('r2')).toMatchObject({ code: 'invalid_reply', reply_text: 'not json' });
    expect((await records('output.jsonl')).map((r) => r.id)).toEqual(['r0', 'r1']);

    // --retry-failed invalid_reply sends what still fails.
    answers.c = ['{"label": "neutral", "score": 0}'];
    const retried = await run('--reply-schema', 'schema.json', '--retry-failed', 'invalid_reply');
    expect(retried.code, retried.stderr).toBe(0);
    expect(server.received.map((r) => r.json!.messages!.at(-1)!.content)).toEqual(['c']);
  });

  it('--resume in text format turns the kept invalid replies into text successes without sending', async () => {
    await rows({ a: ['not json'] });
    expect((await run('--reply-format', 'json', '--reply-retries', '0')).code).toBe(1);
    server.received.length = 0;
    const text = await run('--resume');
    expect(text.code, text.stderr).toBe(0);
    expect(server.received).toHaveLength(0);
    expect((await byId()).get('r0')).toMatchObject({ code: null, reply: 'not json' });
  });
});

describe('validate and --dry-run know the reply keys', () => {
  it('validate lists a bad reply_format, reply_retries and a reply_schema that does not compile; accepts good ones', async () => {
    await rows({ any: ['{}'] });
    await dir.write('bad-schema.json', '{"type": "object", "required": "label"}');
    await dir.write('good-schema.json', JSON.stringify(SENTIMENT_SCHEMA));
    await dir.write(
      'bad.json',
      JSON.stringify({ inputs: ['in.jsonl'], model: 'm', reply_format: 'yaml', reply_retries: -1, reply_schema: 'bad-schema.json' }),
    );
    const bad = await runCli(['validate', 'bad.json'], { cwd: dir.path });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toContain('bad.json: reply_format: "yaml" is not one of text, json');
    expect(bad.stdout).toContain('bad.json: reply_retries: expected an integer ≥ 0, got -1');
    expect(bad.stdout).toContain(
      'bad.json: reply_schema: the reply schema bad-schema.json does not compile (draft 2020-12): schema is invalid: data/required must be array',
    );
    await dir.write(
      'text.json',
      JSON.stringify({ inputs: ['in.jsonl'], model: 'm', reply_format: 'text', reply_schema: 'good-schema.json' }),
    );
    expect((await runCli(['validate', 'text.json'], { cwd: dir.path })).stdout).toContain(
      'text.json: reply_schema: a reply schema checks JSON replies',
    );
    await dir.write(
      'good.json',
      JSON.stringify({
        inputs: ['in.jsonl'],
        model: 'm',
        reply_format: 'json',
        reply_retries: 0,
        reply_schema: 'good-schema.json',
        params: { response_format: { type: 'json_object' } },
      }),
    );
    const good = await runCli(['validate', 'good.json'], { cwd: dir.path });
    expect(good.stdout).toContain('good.json: ok (1 row(s))');
    expect(good.code).toBe(0);
  });

  it('--dry-run compiles the schema (exit 2 when it does not) and says how replies are read', async () => {
    await rows({ any: ['{}'] });
    await dir.write('bad-schema.json', '{"type": "object", "properties": {"a": {"minimum": "one"}}}');
    await dir.write('good-schema.json', JSON.stringify(SENTIMENT_SCHEMA));
    const bad = await runCli(['run', 'in.jsonl', '--model', 'm', '--dry-run', '--simulate', '--reply-schema', 'bad-schema.json'], {
      cwd: dir.path,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('the reply schema bad-schema.json does not compile');
    const good = await runCli(
      ['run', 'in.jsonl', '--model', 'm', '--dry-run', '--simulate', '--reply-schema', 'good-schema.json', '--reply-retries', '2'],
      { cwd: dir.path },
    );
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toContain(
      'replies: read as JSON into data, checked against good-schema.json (it compiles); an invalid reply is sent again up to 2 time(s)',
    );
  });
});
