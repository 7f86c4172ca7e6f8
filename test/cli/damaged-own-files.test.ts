import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli as spawnCli } from '../support/cli.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestServedDir } from '../support/per-test.js';
import type { ScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';
import { tryMountTmpfs } from '../support/tmpfs.js';

// Our own files, damaged or edited by hand or by another version: readers treat them as untrusted
// input. A damaged line is named (file and line) and skipped; a bad cache entry is a miss.

let dir: TempDir;
let server: ScriptedServer;
perTestServedDir((fresh) => ({ dir, server } = fresh));

const env = { CHATBATCH_API_KEY: 'sk-damaged-files-key-00000000' };
const ROWS = [
  { id: 'a', prompt: 'one' },
  { id: 'b', prompt: 'two' },
  { id: 'c', prompt: 'three' },
];

const run = (...extra: string[]) =>
  runCli(['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--quiet', ...extra], { cwd: dir.path, env });

describe('report on damaged records', () => {
  it('a torn line, a duration_ms of 1e300 and a started_at that is no date are named and skipped; the rest is reported', async () => {
    await dir.write('in.jsonl', jsonlOf(ROWS));
    expect((await run()).code).toBe(0);
    const lines = (await dir.read('out/output.jsonl')).trimEnd().split('\n');
    const huge = { ...JSON.parse(lines[1]!), duration_ms: 1e300 };
    const undated = { ...JSON.parse(lines[2]!), started_at: 'yesterday' };
    await dir.write('out/output.jsonl', `${lines[0]}\n${JSON.stringify(huge)}\n${JSON.stringify(undated)}\n{"id":"d","fi`);
    const result = await runCli(['report', 'out', '--html', 'report.html'], { cwd: dir.path, timeoutMs: 20_000 });
    expect(result.code, result.stderr).toBe(0);
    const outputFile = path.join('out', 'output.jsonl');
    expect(result.stderr).toContain(`${outputFile} line 2: duration_ms is 1e+300, not a duration; skipped`);
    expect(result.stderr).toContain(`${outputFile} line 3: started_at is "yesterday"; skipped`);
    expect(result.stderr).toContain(`${outputFile} line 4: not a whole record (torn or edited); skipped`);
    expect(result.stdout).toMatch(/ok: 1 /);
    expect((await readFile(dir.file('report.html'), 'utf8')).length).toBeGreaterThan(100);
  });

  it('rows whose started_at are decades apart are drawn in at most a thousand buckets', async () => {
    await dir.write('in.jsonl', jsonlOf(ROWS));
    expect((await run()).code).toBe(0);
    const [first, ...rest] = (await dir.read('out/output.jsonl')).trimEnd().split('\n');
    const ancient = { ...JSON.parse(first!), started_at: '1970-01-02T00:00:00.000Z' };
    await dir.write('out/output.jsonl', `${[JSON.stringify(ancient), ...rest].join('\n')}\n`);
    const result = await runCli(['report', 'out'], { cwd: dir.path, timeoutMs: 20_000 });
    expect(result.code, result.stderr).toBe(0);
    const bucketLines = result.stdout.split('\n').filter((line) => /^\s+\d+ s\s+\d+/.test(line));
    expect(bucketLines.length).toBeGreaterThan(0);
    expect(bucketLines.length).toBeLessThanOrEqual(1001);
  });
});

describe('a cache entry of the wrong shape or version', () => {
  it('is a miss (the request is sent again), said once, and never served as a reply', async () => {
    await dir.write('in.jsonl', jsonlOf(ROWS));
    expect((await run('--cache', 'cache')).code).toBe(0);
    expect(server.received).toHaveLength(3);
    const entries: string[] = [];
    for (const entry of await readdir(dir.file('cache'), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith('.json')) entries.push(path.join(entry.parentPath, entry.name));
    }
    expect(entries).toHaveLength(3);
    const edits: Array<(entry: Record<string, unknown>) => string> = [
      (entry) => JSON.stringify({ ...entry, reply: 42 }),
      (entry) => JSON.stringify({ ...entry, cache_version: 2, reply: 'from the future' }),
      (entry) => JSON.stringify({ ...entry, usage: 'lots' }).slice(0, 30),
    ];
    for (const [i, file] of entries.entries()) await writeFile(file, edits[i]!(JSON.parse(await readFile(file, 'utf8'))));

    const again = await run('--cache', 'cache', '--force');
    expect(again.code, again.stderr).toBe(0);
    expect(server.received).toHaveLength(6);
    expect(again.stderr.match(/is not usable/g)).toHaveLength(1);
    const replies = (await dir.jsonl<{ reply: unknown; cached?: boolean }>('out/output.jsonl')).map((r) => [r.reply, r.cached ?? false]);
    for (const [reply, cached] of replies) {
      expect(typeof reply).toBe('string');
      expect(reply).not.toBe('from the future');
      expect(cached).toBe(false);
    }
  });
});

describe('a FIFO where one of our files should be never hangs a command', () => {
  it('a cache entry that is a FIFO is a miss (said once); the run finishes', async () => {
    await dir.write('in.jsonl', jsonlOf(ROWS));
    expect((await run('--cache', 'cache')).code).toBe(0);
    const [entry] = (await readdir(dir.file('cache'), { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
    const file = path.join(entry!.parentPath, entry!.name);
    await rm(file);
    execFileSync('mkfifo', [file]);
    const again = await runCli(
      ['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--cache', 'cache', '--force'],
      {
        cwd: dir.path,
        env,
        timeoutMs: 20_000,
      },
    );
    expect(again.signal).toBeNull();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('is not usable (a named pipe (FIFO))');
    expect(server.received).toHaveLength(4);
  });

  it('report and merge on a run whose output.jsonl is a FIFO name it and go on or refuse', async () => {
    await dir.write('in.jsonl', jsonlOf(ROWS));
    expect((await run()).code).toBe(0);
    await rm(dir.file('out/output.jsonl'));
    execFileSync('mkfifo', [dir.file('out/output.jsonl')]);
    const report = await runCli(['report', 'out'], { cwd: dir.path, timeoutMs: 20_000 });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stderr).toContain('out/output.jsonl: a named pipe (FIFO), not a regular file; no records read from it');
    const merged = await runCli(['merge', 'out', '--out', 'all'], { cwd: dir.path, timeoutMs: 20_000 });
    expect(merged.code, merged.stderr).toBe(2);
    expect(merged.stderr).toContain('cannot read out/output.jsonl: a named pipe (FIFO)');
  });
});

describe("a FIFO in the journal's place of a run that looks killed", () => {
  it('report and --dry-run of its resume count nothing from it and finish', async () => {
    await dir.write('in.jsonl', jsonlOf(ROWS));
    expect((await run()).code).toBe(0);
    // As a kill -9 leaves it: still running, its figures covering the journal up to a mark.
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    manifest.status = manifest.sessions[0].status = 'running';
    manifest.sessions[0].usage_journal = { journal: null, bytes: 0 };
    await dir.write('out/manifest.json', JSON.stringify(manifest));
    await rm(dir.file('out/.chatbatch/journal.jsonl'));
    execFileSync('mkfifo', [dir.file('out/.chatbatch/journal.jsonl')]);
    const report = await spawnCli(['report', 'out', '--json'], { cwd: dir.path, timeoutMs: 10_000 });
    expect(report.signal).toBeNull();
    expect(report.code, report.stderr).toBe(0);
    expect(JSON.parse(report.stdout).tokens.total_tokens).toBe(manifest.usage.total_tokens);
    const planned = await spawnCli(
      ['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--resume', '--dry-run'],
      { cwd: dir.path, env, timeoutMs: 10_000 },
    );
    expect(planned.signal).toBeNull();
    expect(planned.code, planned.stderr).toBe(0);
  });
});

describe('a manifest edited into another shape', () => {
  it('--resume writes a new one instead of keeping it, and report reads the result', async () => {
    await dir.write('in.jsonl', jsonlOf(ROWS));
    expect((await run()).code).toBe(0);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    await dir.write('out/manifest.json', JSON.stringify({ ...manifest, sessions: 'x', usage: 'lots' }));
    const refused = await runCli(['report', 'out'], { cwd: dir.path });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('not a chatbatch manifest');
    expect((await run('--resume')).code).toBe(0);
    expect(Array.isArray(JSON.parse(await dir.read('out/manifest.json')).sessions)).toBe(true);
    const report = await runCli(['report', 'out'], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(0);
  });
});

describe('escape sequences from a server or an edited record', () => {
  it('report prints them visibly, never raw to the terminal', async () => {
    await dir.write('in.jsonl', jsonlOf(ROWS));
    expect((await run()).code).toBe(0);
    const lines = (await dir.read('out/output.jsonl')).trimEnd().split('\n');
    const record = { ...JSON.parse(lines[0]!), id: 'id\u001b[31mred', trace_id: '\u001b]0;pwned\u0007' };
    await dir.write('out/output.jsonl', `${[JSON.stringify(record), ...lines.slice(1)].join('\n')}\n`);
    const report = await runCli(['report', 'out'], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).not.toContain('\u001b');
    expect(report.stdout).toContain('id\\u001b[31mred');
  });
});

// A real tmpfs, filled before the report is written: where mounting is not permitted, skipped.
const fullDisk = await mkdtemp(path.join(tmpdir(), 'chatbatch-full-html-'));
const mounted = tryMountTmpfs(fullDisk, '16k');
afterAll(async () => {
  if (mounted) execFileSync('umount', [fullDisk], { stdio: 'ignore' });
  await rm(fullDisk, { recursive: true, force: true });
});

describe.skipIf(!mounted)('report --html on a full disk', () => {
  it('exits 5 and leaves no empty or partial page behind', async () => {
    await dir.write('in.jsonl', jsonlOf(ROWS));
    expect((await run()).code).toBe(0);
    await writeFile(path.join(fullDisk, 'filler'), Buffer.alloc(64 * 1024)).catch(() => {});
    // A full disk as a user's shell meets it: the built CLI, its exit status.
    const report = await spawnCli(['report', 'out', '--html', path.join(fullDisk, 'report.html')], { cwd: dir.path });
    expect(report.code, report.stderr).toBe(5);
    expect(report.stderr).toContain('no space left on device');
    expect(await readdir(fullDisk)).toEqual(['filler']);
  });
});
