import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../support/cli.js';
import { HeldAnswers } from '../support/held-answers.js';
import { perTestServedDir, type ServedDir } from '../support/per-test.js';
import { type ReceivedRequest, sendJson } from '../support/scripted-server.js';
import { jsonlOf } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

// What the server was paid is what the manifest says after kills and resumes, for rows that paid
// more than the one response their record shows: a reply that failed --reply-format json and was
// sent again (two paid answers on one journal line), a paid failure sent again by --retry-failed.

/** Manifest writes after the first hang (a stalled disk): the figures on disk stay the first write's. */
const PRELOAD = `
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const rename = fs.promises.rename;
let writes = 0;
fs.promises.rename = async (from, to) => {
  if (String(to).endsWith('manifest.json') && ++writes > 1) return new Promise(() => {});
  return rename(from, to);
};
syncBuiltinESMExports();
`;
const KEY = 'sk-kill-paid-attempts-000000';
const ROWS = 6;

let fresh: ServedDir;
/** Rows the server answers; a request for any other waits until its row is allowed. */
let held: HeldAnswers<number>;
/** What the server was paid, and the answers that ended a row's attempts (each one journal line). */
let paid = { prompt: 0, completion: 0, responses: 0 };
let lineAnswers = 0;
/** Rows holding a paid answer their next attempt has not replaced yet (a kill would lose it: documented). */
const open = new Set<number>();
const attempts = new Map<number, number>();

const rowOf = (request: ReceivedRequest) => Number((request.json?.messages?.at(-1)?.content ?? 'r0').slice(1));

/** r%3 0: a JSON reply; 1: text that is not JSON first, then JSON; 2: content_filter (a paid failure). */
function answer(request: ReceivedRequest, response: ServerResponse): void {
  const row = rowOf(request);
  const attempt = (attempts.get(row) ?? 0) + 1;
  attempts.set(row, attempt);
  const usage = { prompt_tokens: 10 * row + attempt, completion_tokens: row + 3 * attempt };
  paid = {
    prompt: paid.prompt + usage.prompt_tokens,
    completion: paid.completion + usage.completion_tokens,
    responses: paid.responses + 1,
  };
  const retried = row % 3 === 1 && attempt % 2 === 1;
  if (retried) open.add(row);
  else {
    open.delete(row);
    lineAnswers++;
  }
  const content = row % 3 === 2 ? null : retried ? 'not json' : `{"row":${row}}`;
  sendJson(response, 200, {
    id: `c-${row}-${attempt}`,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: row % 3 === 2 ? 'content_filter' : 'stop' }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  });
}

perTestServedDir(
  (served) => {
    fresh = served;
    held = new HeldAnswers(rowOf, answer);
    paid = { prompt: 0, completion: 0, responses: 0 };
    lineAnswers = 0;
    open.clear();
    attempts.clear();
  },
  (request, response) => held.offer(request, response),
);

async function journalLines(): Promise<number> {
  return (await readFile(fresh.dir.file('out/.chatbatch/journal.jsonl'), 'utf8').catch(() => '')).split('\n').length - 1;
}

describe('rows that paid more than their record shows, through kills', () => {
  it('are counted once each: the manifest says what the server was paid', async () => {
    await fresh.dir.write('in.jsonl', jsonlOf(Array.from({ length: ROWS }, (_, i) => ({ id: `r${i}`, prompt: `r${i}` }))));
    const preload = await fresh.dir.write('preload.mjs', PRELOAD);
    const args = ['run', 'in.jsonl', '--base-url', fresh.server.baseUrl, '--model', 'm', '--price', 'm=2/5'];
    args.push('--reply-format', 'json', '--max-attempts', '3', '--concurrency', '10', '--out', 'out', '--quiet');
    const env = { CHATBATCH_API_KEY: KEY };
    /** A session whose manifest stays at its first write, killed once `lines` rows are journaled and no answer is open. */
    const killedSession = async (rows: number[], lines: number, ...extra: string[]) => {
      const before = await journalLines();
      const answersBefore = lineAnswers;
      const session = startCli([...args, ...extra], {
        cwd: fresh.dir.path,
        env: { ...env, NODE_OPTIONS: `--import ${pathToFileURL(preload).href}` },
      });
      held.allow(...rows);
      await waitFor(
        async () =>
          lineAnswers - answersBefore >= lines && open.size === 0 && (await journalLines()) - before >= lineAnswers - answersBefore,
      );
      session.child.kill('SIGKILL');
      await session.done;
      held.drop();
    };
    await killedSession([0, 1, 2], 3);
    // r2's content_filter is sent again by --retry-failed, and paid again.
    await killedSession([3, 4, 5], 4, '--resume', '--retry-failed');
    const last = await runCli([...args, '--resume'], { cwd: fresh.dir.path, env });
    expect(last.code, last.stderr).toBe(1);
    const manifest = JSON.parse(await fresh.dir.read('out/manifest.json'));
    expect(manifest.usage).toMatchObject({
      prompt_tokens: paid.prompt,
      completion_tokens: paid.completion,
      total_tokens: paid.prompt + paid.completion,
      responses_with_usage: paid.responses,
    });
    expect(manifest.cost.usd).toBeCloseTo((2 * paid.prompt + 5 * paid.completion) / 1e6, 9);
  });
});
