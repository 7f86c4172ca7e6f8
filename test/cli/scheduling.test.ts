import { spawn, spawnSync } from 'node:child_process';
import { chmod, mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';

// docs/scheduling.md: the files a nightly job is installed from, quoted whole, and run as cron
// would run them: from another working directory, with cron's PATH, the key by its file. The
// recipe's absolute paths are mapped to a temporary tree; the commands are the recipe's own.

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const RECIPE = path.join(REPO, 'docs', 'scheduling');
const KEY = 'sk-nightly-test-0123456789';
const FLOCK = spawnSync('sh', ['-c', 'command -v flock']).stdout.toString().trim();

let dir: TempDir;
let simulator: RunningSimulator;
beforeEach(async () => {
  dir = await makeTempDir();
  simulator = await startSimulator({});
});
afterEach(async () => {
  await simulator.close();
  await dir.remove();
});

/** The recipe's absolute paths, each to its place in the temporary tree (or this machine's). */
function mapped(text: string): string {
  const places: Array<[string, string]> = [
    ['/usr/bin/node', process.execPath],
    ['/opt/chatbatch', REPO.replace(/\/$/, '')],
    ['/etc/chatbatch', dir.file('etc')],
    ['/var/lib/chatbatch', dir.file('var')],
    ['/var/log/chatbatch', dir.file('log')],
    ['/usr/local/bin/chatbatch-nightly', dir.file('bin/chatbatch-nightly')],
    ['/usr/bin/flock', FLOCK],
    ['/run/lock', dir.file('lock')],
  ];
  return places.reduce((out, [from, to]) => out.split(from).join(to), text);
}

/** Installs the recipe as its Install section says, the job pointed at the simulator and a sample export. */
async function install(): Promise<void> {
  for (const folder of ['exports', 'etc', 'bin', 'log', 'lock', 'elsewhere']) await mkdir(dir.file(folder));
  const job = JSON.parse(await readFile(path.join(RECIPE, 'nightly.json'), 'utf8'));
  await dir.write('exports/products-1.csv', await readFile(path.join(REPO, 'samples', 'products.csv'), 'utf8'));
  job.inputs = [dir.file('exports/products-*.csv')];
  job.base_url = simulator.url;
  await dir.write('etc/nightly.json', JSON.stringify(job));
  await dir.write('etc/llm-key', `${KEY}\n`);
  await dir.write('bin/chatbatch-nightly', mapped(await readFile(path.join(RECIPE, 'chatbatch-nightly'), 'utf8')));
  await chmod(dir.file('bin/chatbatch-nightly'), 0o755);
}

/** As cron runs a line: sh, PATH=/usr/bin:/bin, the working directory far from the clone. */
const cronEnv = () => ({ PATH: '/usr/bin:/bin', CHATBATCH_API_KEY_FILE: dir.file('etc/llm-key') });
const asCron = (line: string) => runCli(['-c', line], { command: '/bin/sh', cwd: dir.file('elsewhere'), env: cronEnv() });

describe('docs/scheduling.md', () => {
  it('quotes each file of docs/scheduling/ whole, so the page and the files cannot drift apart', async () => {
    const page = await readFile(path.join(REPO, 'docs', 'scheduling.md'), 'utf8');
    const blocks = [...page.matchAll(/^```\w*\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
    const files = await readdir(RECIPE);
    expect(files.sort()).toEqual(['chatbatch-nightly', 'chatbatch-nightly.service', 'chatbatch-nightly.timer', 'crontab', 'nightly.json']);
    for (const file of files) expect(blocks, file).toContain(await readFile(path.join(RECIPE, file), 'utf8'));
  });

  it("the script runs a night from any directory with cron's environment; a night again sends nothing; a bad date is refused", async () => {
    await install();
    const script = dir.file('bin/chatbatch-nightly');
    const night = await runCli([script, '2026-11-27'], { command: '/bin/sh', cwd: dir.file('elsewhere'), env: cronEnv() });
    expect(night.code, night.stderr).toBe(0);
    const lines = night.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ event: 'start', out: dir.file('var/nightly/2026-11-27') });
    expect(lines.at(-1)).toMatchObject({ event: 'summary', exit_code: 0, succeeded: 5, settled_now: 5 });
    expect(await dir.jsonl('var/nightly/2026-11-27/output.jsonl')).toHaveLength(5);
    expect(night.stderr).not.toContain(KEY);

    const again = await runCli([script, '2026-11-27'], { command: '/bin/sh', cwd: dir.file('elsewhere'), env: cronEnv() });
    expect(JSON.parse(again.stderr.trim().split('\n').at(-1)!)).toMatchObject({ exit_code: 0, settled_now: 0 });

    const bad = await runCli([script, '../../etc'], { command: '/bin/sh', cwd: dir.file('elsewhere'), env: cronEnv() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("'../../etc' is not a date");
  });

  it.skipIf(FLOCK === '')(
    'the crontab line: output to the log and nothing on stdout; with the previous run holding the lock, exit 75 in one line',
    async () => {
      await install();
      const crontab = await readFile(path.join(RECIPE, 'crontab'), 'utf8');
      const entry = crontab.split('\n').find((line) => /^[\d*]/.test(line))!;
      const command = mapped(entry.split(/\s+/).slice(5).join(' '));

      const tonight = await asCron(command);
      expect(tonight.code, tonight.stderr).toBe(0);
      expect(tonight.stdout).toBe('');
      const log = (await dir.read('log/nightly.log')).trim().split('\n');
      expect(JSON.parse(log.at(-1)!)).toMatchObject({ event: 'summary', exit_code: 0 });
      const [night] = await readdir(dir.file('var/nightly'));
      expect(night).toMatch(/^\d{4}-\d\d-\d\d$/);

      // The previous night's run, still holding the lock: flock and its child in a group of their
      // own, killed together (the child inherits the lock, and would outlive flock alone).
      const holder = spawn(FLOCK, ['-n', dir.file('lock/chatbatch-nightly.lock'), '-c', 'echo held; exec sleep 60'], {
        stdio: ['ignore', 'pipe', 'ignore'],
        detached: true,
      });
      try {
        await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
        const skipped = await asCron(command);
        expect(skipped.stdout.trim()).toBe(
          `chatbatch-nightly: exit 75 (75: the previous run still runs); see ${dir.file('log/nightly.log')}`,
        );
        expect((await dir.read('log/nightly.log')).trim().split('\n')).toEqual(log);
      } finally {
        process.kill(-holder.pid!, 'SIGKILL');
      }
    },
  );
});
