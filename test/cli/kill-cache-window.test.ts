import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../support/cli.js';
import { perTestServedDir, type ServedDir } from '../support/per-test.js';
import { sendJson } from '../support/scripted-server.js';
import { jsonlOf } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

// With --cache, a reply is stored in the cache before its row's journal line is written. A
// kill -9 between the two leaves a paid answer in the cache and none in the journal: the resume
// serves it from the cache (`cached: true`), neither sent nor paid again (docs/resume.md).

/** The first cache entry put in place: its name is written to `cached-one`, then the process waits forever (and is killed). */
const PRELOAD = `
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const rename = fs.promises.rename;
let stalled = false;
fs.promises.rename = async (from, to) => {
  await rename(from, to);
  if (stalled || !String(to).includes('cache')) return;
  stalled = true;
  fs.writeFileSync('cached-one', String(to));
  return new Promise(() => {});
};
syncBuiltinESMExports();
`;

let served: ServedDir;
const sent = new Map<string, number>();
perTestServedDir(
  (fresh) => {
    served = fresh;
    sent.clear();
  },
  (request, response, index) => {
    const prompt = String(request.json?.messages?.at(-1)?.content);
    sent.set(prompt, (sent.get(prompt) ?? 0) + 1);
    sendJson(response, 200, {
      id: `c-${index}`,
      choices: [{ index: 0, message: { role: 'assistant', content: `answer to ${prompt}` }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
  },
);

describe('--cache and a kill -9 between the cache entry and the journal line', () => {
  it('the resume serves that row from the cache: not sent, nor paid, again', async () => {
    await served.dir.write('in.jsonl', jsonlOf(['p0', 'p1', 'p2'].map((prompt, i) => ({ id: `r${i}`, prompt }))));
    const preload = await served.dir.write('preload.mjs', PRELOAD);
    const args = ['run', 'in.jsonl', '--base-url', served.server.baseUrl, '--model', 'm', '--cache', 'cache', '--out', 'out', '--quiet'];
    const env = { CHATBATCH_API_KEY: 'sk-kill-cache-window-0000' };
    const session = startCli(args, { cwd: served.dir.path, env: { ...env, NODE_OPTIONS: `--import ${pathToFileURL(preload).href}` } });
    const marker = served.dir.file('cached-one');
    await waitFor(async () => (await readFile(marker, 'utf8').catch(() => '')) !== '');
    session.child.kill('SIGKILL');
    await session.done;
    const entryFile = path.resolve(served.dir.path, await readFile(marker, 'utf8'));
    const entry = JSON.parse(await readFile(entryFile, 'utf8')) as { reply: string };
    const prompt = entry.reply.replace('answer to ', '');
    const journal = await readFile(served.dir.file('out/.chatbatch/journal.jsonl'), 'utf8').catch(() => '');
    expect(journal).not.toContain(entry.reply);
    expect(sent.get(prompt)).toBe(1);

    const resumed = await runCli([...args, '--resume'], { cwd: served.dir.path, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(sent.get(prompt)).toBe(1);
    const records = (await served.dir.read('out/output.jsonl'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { reply: string; cached?: boolean; attempts: number });
    expect(records).toHaveLength(3);
    expect(records.find((record) => record.reply === entry.reply)).toMatchObject({ cached: true, attempts: 0 });
  });
});
