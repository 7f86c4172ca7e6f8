import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { ConfigError, type RunFlags, resolveRunConfig } from '../../src/job/config.js';
import { checkJob, type LoadedJob } from '../../src/job/job-file.js';
import { jobJsonSchema } from '../../src/job/json-schema.js';
import { flagOptions, jobOptions, type OptionSpec, RUN_OPTIONS } from '../../src/job/options.js';
import { runCli } from '../support/cli-in-process.js';

const context = { env: { CHATBATCH_API_KEY: 'k' }, cwd: '/work' };
const required: RunFlags = { inputs: ['in.jsonl'], model: 'm', baseUrl: 'https://api.example.test/v1', out: 'out' };

/** A valid value of the option's kind, unlike its default. */
function sampleValue(spec: OptionSpec): unknown {
  if (spec.choices) return spec.choices.find((choice) => choice !== spec.default);
  // Prices have a form of their own: IN/OUT, or MODEL=IN/OUT.
  if (spec === RUN_OPTIONS.price) return ['m=0.15/0.6', '1/2'];
  // A grader is named: exact, includes, regex:PATTERN, number[:TOLERANCE], choice.
  if (spec === RUN_OPTIONS.grade) return 'number:1%';
  switch (spec.kind) {
    case 'boolean':
      return !spec.default;
    case 'positive-integer':
    case 'non-negative-integer':
      return 7;
    case 'positive-number':
      return 2.5;
    case 'strings':
    case 'fields':
      return ['a', 'b'];
    default:
      return 'x';
  }
}

const plainOptions = flagOptions().filter(([, spec]) => !spec.custom);

describe('the option table', () => {
  it.each(plainOptions)('%s: the flag outranks the job file, which outranks the default', (name, spec) => {
    const value = sampleValue(spec);
    // A grader other than exact, and a judge, need a reference to grade against.
    const needs: RunFlags = spec === RUN_OPTIONS.grade || spec === RUN_OPTIONS.judge ? { ...required, expect: 'answer' } : required;
    const fromDefault = resolveRunConfig(needs, null, context);
    expect(fromDefault[name as keyof typeof fromDefault]).toEqual(spec.default ?? null);
    const fromFlag = resolveRunConfig({ ...needs, [name]: value }, null, context);
    expect(fromFlag[name as keyof typeof fromFlag]).toEqual(value);
    if (spec.job === undefined) return;
    const job: LoadedJob = { file: 'j.json', dir: '.', job: { [spec.job]: value, ...(needs.expect ? { expect: needs.expect } : {}) } };
    expect(checkJob(job.job, 'j.json')).toEqual([]);
    const fromJob = resolveRunConfig(needs, job, context);
    expect(fromJob[name as keyof typeof fromJob]).toEqual(value);
    const overridden = resolveRunConfig({ ...needs, [name]: spec.default ?? value }, job, context);
    expect(overridden[name as keyof typeof overridden]).toEqual(spec.default ?? value);
  });

  it("refuses the library's options of the wrong kind, naming each, before anything runs", () => {
    const bad = { ...required, concurrency: 0, repeat: 1.5, format: 'xlsx', rowParams: 'yes', maxOutageMs: -1 } as unknown as RunFlags;
    const error = (() => {
      try {
        resolveRunConfig(bad, null, context);
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      '--row-params: expected true or false, got "yes"',
      '--concurrency: expected a positive integer, got 0',
      '--max-outage-ms: expected an integer ≥ 0, got -1',
      '--format: "xlsx" is not one of jsonl, csv, openai-batch, parquet',
      '--repeat: expected a positive integer, got 1.5',
    ]);
  });

  it.each([
    [{ format: '' }, '--format: "" is not one of jsonl, csv, openai-batch, parquet'],
    [{ maxCost: 0 }, '--max-cost: expected a number above 0, got 0'],
    [{ replyFormat: '' }, '--reply-format: "" is not one of text, json'],
    [{ retryFailed: 'all' }, '--retry-failed: expected a list of failure categories'],
    [{ headers: 'x-a: 1' }, "--header: expected a list of 'Name: value' strings"],
    [{ inputs: ['in.jsonl'], out: 3 }, '--out: expected a non-empty string, got 3'],
  ])("refuses the library's %o with one problem naming it, never a TypeError", (bad, problem) => {
    expect(() => resolveRunConfig({ ...required, ...bad } as unknown as RunFlags, null, context)).toThrow(
      expect.objectContaining({ problems: [problem] }),
    );
  });

  it('takes an empty --retry-failed, or empty categories in it, for all failed rows', () => {
    for (const retryFailed of [[], [''], ['', '']]) {
      expect(resolveRunConfig({ ...required, retryFailed }, null, context)).toMatchObject({ retryFailed: 'all', resume: true });
    }
  });

  it("lets an empty flag override the job file's text (--system '' drops the job's system message)", () => {
    const job: LoadedJob = { file: 'j.json', dir: '.', job: { system: 'S' } };
    expect(resolveRunConfig({ ...required, system: '' }, job, context).system).toBe('');
    expect(checkJob({ system: '' }, 'j.json')).toEqual([{ where: 'j.json: system', problem: 'expected a non-empty string, got ""' }]);
  });

  it("takes the request params from the library's options over the job file's, checked the same way", () => {
    const job: LoadedJob = { file: 'j.json', dir: '.', job: { params: { temperature: 1 } } };
    expect(resolveRunConfig({ ...required, params: { temperature: 0 } }, job, context).params).toEqual({ temperature: 0 });
    expect(resolveRunConfig(required, job, context).params).toEqual({ temperature: 1 });
    expect(() => resolveRunConfig({ ...required, params: { temperature: 'hot' } }, null, context)).toThrow(/temperature/);
    expect(() => resolveRunConfig({ ...required, params: [] as unknown as Record<string, unknown> }, null, context)).toThrow(
      'params: expected an object',
    );
  });

  it('gives every job key its schema entry, with its description and default, and the schema accepts what checkJob accepts', () => {
    const schema = jobJsonSchema() as { properties: Record<string, { description: string; default?: unknown }> };
    expect(Object.keys(schema.properties).sort()).toEqual(
      jobOptions()
        .map(([, spec]) => spec.job)
        .sort(),
    );
    expect(schema.properties.max_attempts).toMatchObject({ default: RUN_OPTIONS.maxAttempts.default });
    expect(schema.properties.max_attempts!.description).toContain(`(default ${RUN_OPTIONS.maxAttempts.default})`);
    const validate = new Ajv2020({ strict: false }).compile(schema);
    const job = Object.fromEntries(
      jobOptions().map(([, spec]) => [
        spec.job,
        spec.kind === 'params' ? {} : spec.kind === 'headers' ? { 'x-a': 'b' } : sampleValue(spec),
      ]),
    );
    // Keys that exclude or shape others: the key from a file, JSON replies for a schema, a URL.
    delete job.api_key_env;
    job.reply_format = 'json';
    job.base_url = 'https://api.example.test/v1';
    expect(checkJob(job, 'j.json')).toEqual([]);
    expect(validate(job), JSON.stringify(validate.errors)).toBe(true);
  });

  it('gives every flag of the table to `chatbatch run`, with its default in the help', async () => {
    const help = (await runCli(['run', '--help'])).stdout;
    for (const [, spec] of flagOptions()) expect(help).toContain(`--${spec.flag} `);
    expect(help).toContain(`(default ${RUN_OPTIONS.maxAttempts.default})`);
  });
});
