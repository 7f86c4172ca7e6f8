import { type AddressInfo, createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOOL_VERSION } from '../../src/http/tool-version.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { acquireLock } from '../../src/state/lock.js';
import { runCli } from '../support/cli-in-process.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

// `--log-format json` is read by log collectors that alert on `level`: a run the endpoint stopped
// must not read as `info`, and the first line says what ran (docs/reporting.md).

const KEY = 'sk-json-log-levels-0123456789';
let dir: TempDir;
let simulator: RunningSimulator | null = null;
beforeEach(async () => {
  dir = await makeTempDir();
  await dir.write('in.jsonl', jsonlOf(Array.from({ length: 6 }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }))));
});
afterEach(async () => {
  await simulator?.close();
  simulator = null;
  await dir.remove();
});

interface LogLine {
  time: string;
  level: string;
  event: string;
  [field: string]: unknown;
}

async function runJson(...args: string[]): Promise<{ code: number | null; lines: LogLine[]; stderr: string }> {
  const result = await runCli(['run', 'in.jsonl', '--out', 'out', '--log-format', 'json', ...args], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: KEY },
  });
  const lines = result.stderr
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as LogLine);
  return { code: result.code, lines, stderr: result.stderr };
}

/** A loopback port nothing listens on: bound to learn a free number, then closed. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('--log-format json: levels and the start event', () => {
  it('nobody answering at the base URL: the start first, the stop at error (event stop), the summary at error', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/v1?api-version=2024-10-21&tenant=t-4f9a7c2e`;
    const { code, lines, stderr } = await runJson('--base-url', baseUrl, '--model', 'm-1', '--quiet');
    expect(code, stderr).toBe(3);
    expect(lines[0]).toMatchObject({
      level: 'info',
      event: 'start',
      version: TOOL_VERSION,
      job: null,
      inputs: ['in.jsonl'],
      models: ['m-1'],
      out: 'out',
      resume: false,
    });
    // The base URL as the manifest shows it: a query value that may be a gateway's token masked.
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(lines[0]!.base_url).toBe(manifest.config.baseUrl);
    expect(lines[0]!.base_url).toMatch(/\?api-version=2024-10-21&tenant=\*+$/);
    expect(stderr).not.toContain('t-4f9a7c2e');
    const stop = lines.find((line) => line.event === 'stop');
    expect(stop).toMatchObject({ level: 'error', message: expect.stringContaining('nothing is listening at the base URL') });
    expect(lines.at(-1)).toMatchObject({ event: 'summary', level: 'error', status: 'aborted', exit_code: 3 });
    expect(lines.filter((line) => line.level === 'info' && /stopped early/.test(String(line.message)))).toEqual([]);
    expect(stderr).not.toContain(KEY);
  });

  it('one model of two refused: its stop is one error, as it happens; a --limit stop is a warning, its summary too', async () => {
    simulator = await startSimulator({ models: ['good'] });
    const refused = await runJson('--base-url', simulator.url, '--model', 'good', '--model', 'missing', '--quiet');
    expect(refused.code, refused.stderr).toBe(3);
    // Said once: as it happens (the other model goes on), not again at the end; the summary's `fatal` keeps it.
    const stops = refused.lines.filter((line) => line.event === 'stop');
    expect(stops).toEqual([
      expect.objectContaining({
        level: 'error',
        message: expect.stringMatching(/missing's rows stopped early[\s\S]*the other models go on/),
      }),
    ]);
    expect(refused.lines.at(-1)).toMatchObject({ event: 'summary', fatal: expect.stringContaining('missing') });
    expect(refused.lines[0]).toMatchObject({ event: 'start', models: ['good', 'missing'] });

    const limited = await runJson('--base-url', simulator.url, '--model', 'good', '--limit', '2', '--force', '--quiet');
    expect(limited.code, limited.stderr).toBe(4);
    expect(limited.lines[0]).toMatchObject({ event: 'start', limit: 2 });
    expect(limited.lines.find((line) => /--limit 2 asked/.test(String(line.message)))).toMatchObject({ level: 'warn', event: 'message' });
    expect(limited.lines.at(-1)).toMatchObject({ event: 'summary', level: 'warn', exit_code: 4 });
  });

  it('a second copy refused by the lock on its output directory (exit 2) logs no start: it started nothing', async () => {
    simulator = await startSimulator({});
    const first = await runJson('--base-url', simulator.url, '--model', 'm', '--quiet');
    expect(first.code, first.stderr).toBe(0);
    // The running copy: its lock, held by this process (so not taken for a leftover of a dead one).
    const release = await acquireLock(dir.file('out/.chatbatch/lock'));
    try {
      const second = await runJson('--base-url', simulator.url, '--model', 'm', '--resume', '--quiet');
      expect(second.code, second.stderr).toBe(2);
      expect(second.lines).toEqual([
        expect.objectContaining({ level: 'error', event: 'message', message: expect.stringContaining('another chatbatch process') }),
      ]);
    } finally {
      await release();
    }
  });

  it('a configuration refused (exit 2) is an error; a complete run is info from start to summary', async () => {
    const refused = await runJson('--model', 'm');
    expect(refused.code).toBe(2);
    expect(refused.lines).toEqual([
      expect.objectContaining({ level: 'error', event: 'message', message: expect.stringContaining('no base URL') }),
    ]);

    simulator = await startSimulator({});
    const complete = await runJson('--base-url', simulator.url, '--model', 'm', '--quiet');
    expect(complete.code, complete.stderr).toBe(0);
    expect(complete.lines.map((line) => `${line.event} ${line.level}`)).toEqual(['start info', 'summary info']);
  });
});
