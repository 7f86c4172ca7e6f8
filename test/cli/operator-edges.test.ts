import { mkdir, readdir, rm, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_HELP_GROUPS } from '../../src/cli/help-groups.js';
import { invocation } from '../../src/cli/invocation.js';
import { RUN_ONLY_FLAGS } from '../../src/cli/unknown-flags.js';
import { flagOptions } from '../../src/job/options.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { CLI } from '../support/cli.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestSimulatedDir } from '../support/per-test.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
let dir: TempDir;
let simulator: RunningSimulator;
let sent: string[];
perTestSimulatedDir((fresh) => ({ dir, simulator, sent } = fresh));
const requests = () => sent.length;

const env = { CHATBATCH_API_KEY: 'sk-operator-edges-123456' };
const run = (args: string[], extra: { cwd?: string; env?: Record<string, string> } = {}) =>
  runCli(['run', ...args], { cwd: extra.cwd ?? dir.path, env: { ...env, ...extra.env } });
const against = ['--base-url', '', '--model', 'm'];
const endpoint = () => against.map((arg, i) => (i === 1 ? simulator.url : arg));

describe('--param NAME=VALUE', () => {
  it("sends the parameters (JSON when it parses, else text) over the job's params", async () => {
    await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'hi' }]));
    await dir.write('job.json', JSON.stringify({ params: { temperature: 0.9, top_p: 0.5 } }));
    const result = await run([
      'in.jsonl',
      '--job',
      'job.json',
      ...endpoint(),
      '--dry-run',
      '--param',
      'temperature=0.2',
      '--param',
      'stop=END',
      '--param',
      'max_tokens=30',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const body = JSON.parse(/(\{"model".*\})/.exec(result.stdout)![1]!) as Record<string, unknown>;
    expect(body).toMatchObject({ temperature: 0.2, top_p: 0.5, stop: 'END', max_tokens: 30 });
  });

  it('refuses a malformed or unknown parameter with exit 2, sending nothing', async () => {
    await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'hi' }]));
    const malformed = await run(['in.jsonl', ...endpoint(), '--out', 'out', '--param', 'temperature']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('--param needs NAME=VALUE');
    const unknown = await run(['in.jsonl', ...endpoint(), '--out', 'out', '--param', 'temprature=1']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('params.temprature: unknown parameter');
    expect(requests()).toBe(0);
  });
});

describe('unknown flags', () => {
  it('suggests the flag that was meant', async () => {
    const result = await run(['in.jsonl', '--concurency', '3', '--modle', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--concurency: did you mean --concurrency?');
    expect(result.stderr).toContain('--modle: did you mean --model?');
    const report = await runCli(['report', 'out', '--htlm', 'x.html'], { cwd: dir.path });
    expect(report.stderr).toContain('--htlm: did you mean --html?');
  });
});

describe('a template naming a column the CSV lacks', () => {
  it('exits 2 before the first request, naming the file, the column and the nearest header', async () => {
    await dir.write('products.csv', 'sku,name,category\n1,Lamp,home\n2,Desk,office\n');
    const result = await run(['products.csv', ...endpoint(), '--out', 'out', '--template', 'Describe {{nmae}} ({{category}})']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("products.csv: the template's {{nmae}} is not a column of its header (did you mean {{name}}?)");
    expect(requests()).toBe(0);
    await expect(readdir(dir.file('out'))).rejects.toThrow();
  });
});

describe('--resume with inputs that no longer hold settled rows', () => {
  it('is refused with exit 2 and nothing touched; appending rows and growing --repeat go on; --allow-dropped-rows drops them', async () => {
    await dir.write(
      'a.jsonl',
      jsonlOf([
        { id: 'a1', prompt: 'one' },
        { id: 'a2', prompt: 'two' },
      ]),
    );
    await dir.write('b.jsonl', jsonlOf([{ id: 'b1', prompt: 'three' }]));
    expect((await run(['a.jsonl', ...endpoint(), '--out', 'out', '--quiet'])).code).toBe(0);
    const before = await Promise.all(
      ['output.jsonl', 'manifest.json', 'journal.jsonl'].map((name) => dir.read(`out/${name}`).catch(() => '')),
    );
    const sentBefore = requests();

    const refused = await run(['b.jsonl', ...endpoint(), '--out', 'out', '--resume', '--quiet']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "2 record(s) the earlier run wrote in out are of rows not in this run's inputs (earlier: a.jsonl; now: b.jsonl",
    );
    expect(refused.stderr).toContain('--allow-dropped-rows');
    expect(requests()).toBe(sentBefore);
    const after = await Promise.all(
      ['output.jsonl', 'manifest.json', 'journal.jsonl'].map((name) => dir.read(`out/${name}`).catch(() => '')),
    );
    expect(after).toEqual(before);

    await dir.write(
      'a.jsonl',
      jsonlOf([
        { id: 'a1', prompt: 'one' },
        { id: 'a2', prompt: 'two' },
        { id: 'a3', prompt: 'appended' },
      ]),
    );
    const appended = await run(['a.jsonl', ...endpoint(), '--out', 'out', '--resume', '--quiet']);
    expect(appended.code, appended.stderr).toBe(0);
    for (const repeat of ['2', '3']) {
      const grown = await run(['a.jsonl', ...endpoint(), '--out', 'out', '--resume', '--repeat', repeat, '--quiet']);
      expect(grown.code, grown.stderr).toBe(0);
    }
    const shrunk = await run(['a.jsonl', ...endpoint(), '--out', 'out', '--resume', '--repeat', '2', '--quiet']);
    expect(shrunk.code).toBe(2);
    expect(shrunk.stderr).toContain("3 record(s) the earlier run wrote in out are of rows not in this run's inputs");

    const allowed = await run(['b.jsonl', ...endpoint(), '--out', 'out', '--resume', '--allow-dropped-rows', '--quiet']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stderr).toContain('they are dropped from output.jsonl and errors.jsonl (--allow-dropped-rows)');
    expect((await dir.jsonl<{ id: string }>('out/output.jsonl')).map((r) => r.id)).toEqual(['b1']);
    // Once dropped, they stop no later resume of these inputs.
    const again = await run(['b.jsonl', ...endpoint(), '--out', 'out', '--resume', '--quiet']);
    expect(again.code, again.stderr).toBe(0);
  });
});

describe('--resume after fixing a line', () => {
  it('goes on: the invalid row it replaces is no settled row lost', async () => {
    await dir.write('a.jsonl', `${JSON.stringify({ id: 'a1', prompt: 'one' })}\nnot json\n`);
    expect((await run(['a.jsonl', ...endpoint(), '--out', 'out', '--quiet'])).code).toBe(1);
    await dir.write(
      'a.jsonl',
      jsonlOf([
        { id: 'a1', prompt: 'one' },
        { id: 'a2', prompt: 'fixed' },
      ]),
    );
    const fixed = await run(['a.jsonl', ...endpoint(), '--out', 'out', '--resume', '--quiet']);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect((await dir.jsonl<{ id: string }>('out/output.jsonl')).map((r) => r.id)).toEqual(['a1', 'a2']);
  });
});

describe('--format csv on a run that stops with rows pending', () => {
  it('writes no output.csv (and removes an earlier one) until every row has settled', async () => {
    await dir.write('in.csv', `id,prompt\n${Array.from({ length: 6 }, (_, i) => `r${i},prompt ${i}`).join('\n')}\n`);
    expect((await run(['in.csv', ...endpoint(), '--out', 'out', '--format', 'csv', '--quiet'])).code).toBe(0);
    expect(await dir.read('out/output.csv')).toContain('r5,prompt 5');
    await dir.write('in.csv', `id,prompt\n${Array.from({ length: 12 }, (_, i) => `r${i},prompt ${i}`).join('\n')}\n`);
    const resumeWithBudget = (tokens: string) =>
      run(['in.csv', ...endpoint(), '--out', 'out', '--format', 'csv', '--resume', '--max-total-tokens', tokens, '--quiet']);
    const stopped = await resumeWithBudget('60');
    expect(stopped.code, stopped.stderr).toBe(4);
    expect(stopped.stderr).toContain('--format csv: not written while');
    await expect(dir.read('out/output.csv')).rejects.toThrow();
    const finished = await resumeWithBudget('100000');
    expect(finished.code, finished.stderr).toBe(0);
    expect((await dir.read('out/output.csv')).trim().split('\n')).toHaveLength(13);
  });
});

describe('--log-format json', () => {
  it('writes every stderr line as one JSON object with an ISO time, the summary last', async () => {
    await dir.write(
      'in.jsonl',
      jsonlOf([
        { id: 'a', prompt: 'hi' },
        { id: 'b', prompt: 'bad [[sim:400]]' },
      ]),
    );
    const result = await run(['in.jsonl', ...endpoint(), '--out', 'out', '--log-format', 'json'], { env: { CHATBATCH_PROGRESS_MS: '5' } });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    const objects = lines.map((line) => JSON.parse(line) as { time: string; event: string; [key: string]: unknown });
    for (const object of objects) expect(new Date(object.time).toISOString()).toBe(object.time);
    expect(objects.at(-1)).toMatchObject({ event: 'summary', status: 'finished_with_failures', exit_code: 1, succeeded: 1, failed: 1 });
    const usage = await run(['in.jsonl', '--log-format', 'json', '--concurency', '2']);
    expect(JSON.parse(usage.stderr)).toMatchObject({ level: 'error', message: expect.stringContaining('did you mean --concurrency?') });
  });

  it('without a terminal, progress lines start with an ISO time', async () => {
    await dir.write('in.jsonl', jsonlOf(Array.from({ length: 30 }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }))));
    const slow = await startSimulator({ latencyMs: 20 });
    const result = await runCli(['run', 'in.jsonl', '--base-url', slow.url, '--model', 'm', '--out', 'out', '--concurrency', '2'], {
      cwd: dir.path,
      env: { ...env, CHATBATCH_PROGRESS_MS: '5' },
    }).finally(() => slow.close());
    expect(result.stderr).toMatch(/^chatbatch: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \d+\/30 done/m);
  });
});

describe('chatbatch simulate on a busy port', () => {
  let holder: Server;
  afterEach(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  it('exits 2 naming the port', async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    const result = await runCli(['simulate', '--port', String(port)], { cwd: dir.path });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--port ${port}: the port is already in use on 127.0.0.1`);
    expect(result.stderr).not.toContain('internal error');
  });
});

describe('run --help', () => {
  it('puts every flag of run in exactly one group', () => {
    const grouped = RUN_HELP_GROUPS.flatMap(([, flags]) => flags);
    expect(new Set(grouped).size).toBe(grouped.length);
    expect([...grouped].sort()).toEqual([...flagOptions().map(([, spec]) => spec.flag), ...RUN_ONLY_FLAGS].sort());
  });

  it('shows the groups and every exit code', async () => {
    const help = await runCli(['run', '--help'], { cwd: dir.path });
    for (const [title] of RUN_HELP_GROUPS) expect(help.stdout).toContain(`\n${title}\n`);
    for (const code of [0, 1, 2, 3, 4, 5, 70, 130]) expect(help.stdout).toMatch(new RegExp(`(^|[ ;])${code} [a-z(]`, 'm'));
  });
});

describe('the resume hint', () => {
  it('names the command as the user can run it', async () => {
    await dir.write('in.jsonl', jsonlOf(Array.from({ length: 5 }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }))));
    const outside = await run(['in.jsonl', ...endpoint(), '--out', 'out', '--max-total-tokens', '30', '--quiet']);
    expect(outside.code).toBe(4);
    // From a folder with no install and no chatbatch on PATH: the script itself, by its absolute
    // path, so the hint works pasted anywhere (issue 42: `../../../dist/cli/main.js` did not).
    expect(outside.stderr).toContain(`  node ${path.resolve(CLI)} run in.jsonl`);
    // In the clone: npx finds the package's own bin.
    const inClone = await run(
      [path.join(dir.path, 'in.jsonl'), ...endpoint(), '--out', dir.file('clone-out'), '--max-total-tokens', '30', '--quiet'],
      {
        cwd: REPO,
      },
    );
    expect(inClone.code).toBe(4);
    expect(inClone.stderr).toMatch(/\n {2}npx chatbatch run /);
  });

  it('writes the key typed into an argument back as its variable, so the line neither shows it nor breaks when pasted', async () => {
    await dir.write('in.jsonl', jsonlOf(Array.from({ length: 5 }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }))));
    const header = `api-key: ${env.CHATBATCH_API_KEY}`;
    const stopped = await run(['in.jsonl', ...endpoint(), '--out', 'out', '--header', header, '--max-total-tokens', '30', '--quiet']);
    expect(stopped.code).toBe(4);
    expect(stopped.stderr).toContain(` --header "api-key: \${CHATBATCH_API_KEY}" `);
    expect(stopped.stderr).not.toContain(env.CHATBATCH_API_KEY);
  });

  it('is the bare name when chatbatch on PATH is this program', async () => {
    await mkdir(dir.file('bin'));
    await symlink(CLI, dir.file('bin/chatbatch'));
    expect(invocation(CLI, { PATH: `/usr/bin${path.delimiter}${dir.file('bin')}` }, dir.path)).toBe('chatbatch');
    await rm(dir.file('bin/chatbatch'));
    expect(invocation(CLI, { PATH: dir.file('bin') }, REPO)).toBe('npx chatbatch');
  });
});
