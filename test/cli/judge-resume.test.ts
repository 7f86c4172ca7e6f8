import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../support/cli.js';
import { runCli as runCliInProcess, startCliInProcess } from '../support/cli-in-process.js';
import { perTestServedDir, type ServedDir } from '../support/per-test.js';
import { sendJson } from '../support/scripted-server.js';
import { jsonlOf } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

// A model answers every row at once; its judge answers the judge requests of rows r0..r3 and
// holds the others' until the second session. The first session is killed with kill -9 once the
// four verdicts are journaled: the resume must send no row's request again and no answered
// judge request again, and judge every other row.

const JUDGED_FIRST = ['r0', 'r1', 'r2', 'r3'];
let fresh: ServedDir;
let answerAll = false;
const sent: Array<{ session: number; judge: boolean; row: string }> = [];
perTestServedDir(
  (served) => {
    fresh = served;
    answerAll = false;
    sent.length = 0;
  },
  (request, response, index) => {
    const content = String(request.json?.messages?.at(-1)?.content ?? '');
    const judge = request.json?.model === 'judge-m';
    const row = judge ? /\[Question\]: (r\d+)/.exec(content)![1]! : content;
    sent.push({ session: answerAll ? 2 : 1, judge, row });
    if (judge && !answerAll && !JUDGED_FIRST.includes(row)) return;
    // r5's judge answers without a grade: its verdict is null, not false.
    const reply = judge ? (row === 'r5' ? 'Hard to say.' : `Looks right.\nGRADE: ${row === 'r1' ? 'I' : 'C'}`) : `answer ${row}`;
    sendJson(response, 200, {
      id: `chatcmpl-${index}`,
      choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }],
      usage: { prompt_tokens: judge ? 50 : 5, completion_tokens: judge ? 10 : 2, total_tokens: judge ? 60 : 7 },
    });
  },
);

interface Judged {
  id: string;
  correct: boolean | null;
  judge: { model: string; verdict: boolean | null; reply: string | null } | null;
}

describe('--judge, killed with kill -9 and resumed', () => {
  it('sends no judge request twice that was answered, no row request again, and judges every row', async () => {
    const { dir, server } = fresh;
    await dir.write('in.jsonl', jsonlOf(Array.from({ length: 8 }, (_, i) => ({ id: `r${i}`, prompt: `r${i}`, gold: `answer r${i}` }))));
    const args = [
      'run',
      'in.jsonl',
      '--base-url',
      server.baseUrl,
      '--model',
      'm',
      '--expect',
      'gold',
      '--judge',
      'judge-m',
      '--out',
      'out',
      '--quiet',
    ];
    const env = { CHATBATCH_API_KEY: 'sk-judge-resume-0000000000' };
    const { child, done } = startCli(args, { cwd: dir.path, env });
    const verdictsJournaled = async (): Promise<number> => {
      const journal = await dir.read('out/.chatbatch/journal.jsonl').catch(() => '');
      return journal.split('\n').filter((line) => line.includes('"judge":{"model":"judge-m"')).length;
    };
    let journaled = 0;
    await waitFor(async () => {
      journaled = await verdictsJournaled();
      return journaled === JUDGED_FIRST.length && sent.filter((request) => request.judge).length === 8;
    });
    child.kill('SIGKILL');
    await done;

    answerAll = true;
    const resumed = await runCli([...args, '--resume'], { cwd: dir.path, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const second = sent.filter((request) => request.session === 2);
    // No row's reply is paid for twice: every row was journaled, awaiting its judge or judged.
    expect(second.filter((request) => !request.judge)).toEqual([]);
    // Only the judge requests that had no answer are sent again.
    expect(second.map((request) => request.row).sort()).toEqual(['r4', 'r5', 'r6', 'r7']);

    const records = await dir.jsonl<Judged>('out/output.jsonl');
    expect(records.map((record) => [record.id, record.judge?.verdict])).toEqual([
      ['r0', true],
      ['r1', false],
      ['r2', true],
      ['r3', true],
      ['r4', true],
      ['r5', null],
      ['r6', true],
      ['r7', true],
    ]);
    // `correct` stays the grader's (exact): the reply is the reference.
    expect(records.every((record) => record.correct === true)).toBe(true);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.status).toBe('complete');
    // The judge's tokens are its own (60 a request), the models' theirs (7 a request): the resume's
    // four judge requests are in judge.usage, none in usage. (What the killed session spent is
    // there only as far as its manifest checkpoints got.)
    expect(manifest.judge.model).toBe('judge-m');
    expect(manifest.judge.usage.total_tokens % 60).toBe(0);
    expect(manifest.judge.usage.total_tokens).toBeGreaterThanOrEqual(4 * 60);
    expect(manifest.usage.total_tokens % 7).toBe(0);
    expect(manifest.sessions[1].usage.total_tokens).toBe(0);
  });

  it('stopped by a signal whose grace ends before the judge answers: its journal keeps the replies awaiting their judge, and the resume (of the rows reversed) pays for none again', async () => {
    const { dir, server } = fresh;
    const rows = Array.from({ length: 8 }, (_, i) => ({ id: `r${i}`, prompt: `r${i}`, gold: `answer r${i}` }));
    await dir.write('in.jsonl', jsonlOf(rows));
    const args = [
      'run',
      'in.jsonl',
      '--base-url',
      server.baseUrl,
      '--model',
      'm',
      '--expect',
      'gold',
      '--judge',
      'judge-m',
      '--out',
      'out',
      '--quiet',
    ];
    const env = { CHATBATCH_API_KEY: 'sk-judge-resume-0000000000' };
    const first = startCliInProcess([...args, '--grace-ms', '200'], { cwd: dir.path, env });
    await waitFor(() => sent.filter((request) => request.judge).length === 8);
    first.stop('SIGTERM');
    const stopped = await first.done;
    expect(stopped.code, stopped.stderr).toBe(130);
    // The session ended well: its journal refers to the judged records, and keeps the four replies
    // awaiting their judge as they were journaled (their records are in no file).
    const journal = await dir.read('out/.chatbatch/journal.jsonl');
    expect(journal.split('\n').filter((line) => line.startsWith('@'))).toHaveLength(4);
    expect(journal.split('\n').filter((line) => /^[0-9a-f]{8}\t/.test(line) && line.includes('+judge'))).toHaveLength(4);

    answerAll = true;
    // The rows reversed: each record, judged before or judged now, says where its row is now.
    await dir.write('in.jsonl', jsonlOf(rows.reverse()));
    const resumed = await runCli([...args, '--resume'], { cwd: dir.path, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const second = sent.filter((request) => request.session === 2);
    expect(second.filter((request) => !request.judge)).toEqual([]);
    expect(second.map((request) => request.row).sort()).toEqual(['r4', 'r5', 'r6', 'r7']);
    const records = await dir.jsonl<Judged & { line: number }>('out/output.jsonl');
    expect(records.map((record) => [record.id, record.line, record.judge?.verdict])).toEqual([
      ['r7', 1, true],
      ['r6', 2, true],
      ['r5', 3, null],
      ['r4', 4, true],
      ['r3', 5, true],
      ['r2', 6, true],
      ['r1', 7, false],
      ['r0', 8, true],
    ]);
  });

  it("keeps the judge's tokens and dollars in the directory's when a resume has no --judge", async () => {
    const { dir, base } = await fourGoldRows();
    await firstTwoJudged(dir, [...base, '--judge', 'judge-m', '--price', 'judge-m=10/20']);
    // --dry-run of that resume counts the judge's dollars as spent: two judge answers, two models'.
    const planned = await runCliInProcess([...base, '--out', 'out', '--resume', '--dry-run', '--max-cost', '1'], {
      cwd: dir.path,
      env: ENV,
    });
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout + planned.stderr).toContain(`$${(2 * (50 * 10 + 10 * 20) + 2 * (5 + 2 * 2)) / 1e6} already spent in out`);
    const resumed = await runCliInProcess([...base, '--out', 'out', '--quiet', '--resume'], { cwd: dir.path, env: ENV });
    expect(resumed.code, resumed.stderr).toBe(0);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    // Two judge answers of 50 + 10 tokens at $10/$20, four model answers of 5 + 2 at $1/$2.
    expect(manifest.judge.usage.total_tokens).toBe(120);
    expect(manifest.judge.cost.usd).toBeCloseTo((2 * (50 * 10 + 10 * 20)) / 1e6, 12);
    expect(manifest.cost.usd).toBeCloseTo((2 * (50 * 10 + 10 * 20) + 4 * (5 + 2 * 2)) / 1e6, 12);
    const sessions = manifest.sessions.map((session: { cost_usd: number }) => session.cost_usd);
    expect(manifest.cost.usd).toBeCloseTo(sessions[0] + sessions[1], 12);
  });

  it("prices an earlier judge's tokens at its price given on resume: --max-cost counts them, and what was spent before", async () => {
    const { dir, base: modelsOnly } = await fourGoldRows();
    const base = [...modelsOnly, '--judge', 'judge-m'];
    // The judge's price unknown in the first session: its dollars are null there.
    await firstTwoJudged(dir, base);
    expect(JSON.parse(await dir.read('out/manifest.json')).judge.cost.usd).toBeNull();
    const firstRequests = sent.length;
    // Without --judge its dollars stay unknown: the run refuses --max-cost, and its --dry-run says so.
    // Before, the dry run read them as nothing spent ("... $1.00 left").
    const planned = await runCliInProcess([...modelsOnly, '--out', 'out', '--resume', '--dry-run', '--max-cost', '1'], {
      cwd: dir.path,
      env: ENV,
    });
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout + planned.stderr).toMatch(/--max-cost cannot be kept: the dollars already spent in out are unknown/);
    const refused = await runCliInProcess([...modelsOnly, '--out', 'out', '--quiet', '--resume', '--max-cost', '1'], {
      cwd: dir.path,
      env: ENV,
    });
    expect(refused.code).toBe(2);
    expect(sent.length).toBe(firstRequests);
    // Two judge answers of 50 + 10 tokens at $10/$20 ($0.0014) and two model answers: past $0.001.
    // Before, the earlier judge's unknown dollars made the directory's total unknown, and --max-cost
    // read that as nothing spent: the resume sent the two rows left and judged them.
    const resumed = await runCliInProcess(
      [...base, '--price', 'judge-m=10/20', '--out', 'out', '--quiet', '--resume', '--max-cost', '0.001'],
      {
        cwd: dir.path,
        env: ENV,
      },
    );
    expect(resumed.code, resumed.stderr).toBe(4);
    expect(sent.length).toBe(firstRequests);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.judge.cost.usd).toBeCloseTo((2 * (50 * 10 + 10 * 20)) / 1e6, 12);
    expect(manifest.cost.usd).toBeCloseTo((2 * (50 * 10 + 10 * 20) + 2 * (5 + 2 * 2)) / 1e6, 12);
  });

  it("resumes a directory whose manifest's judge was damaged (null): its dollars unknown, not a TypeError", async () => {
    const { dir, base } = await fourGoldRows();
    await firstTwoJudged(dir, [...base, '--judge', 'judge-m', '--price', 'judge-m=10/20']);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    await dir.write('out/manifest.json', JSON.stringify({ ...manifest, judge: null }));
    const resumed = await runCliInProcess([...base, '--out', 'out', '--quiet', '--resume'], { cwd: dir.path, env: ENV });
    expect(resumed.stderr).not.toMatch(/TypeError|at .*\.js:\d+/);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(await dir.read('out/manifest.json')).cost.usd).toBeNull();
    // And the resume after it: the damaged judge's dollars are still unknown, not dropped as none.
    await dir.write('in.jsonl', goldRows(6));
    const again = await runCliInProcess([...base, '--out', 'out', '--quiet', '--resume'], { cwd: dir.path, env: ENV });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(await dir.read('out/manifest.json')).cost.usd).toBeNull();
  });
});

const ENV = { CHATBATCH_API_KEY: 'sk-judge-resume-test-000000' };

/** `count` rows, each with its gold answer. */
function goldRows(count: number): string {
  return jsonlOf(Array.from({ length: count }, (_, i) => ({ id: `r${i}`, prompt: `r${i}`, gold: `answer r${i}` })));
}

/** Four rows with gold answers, every request answered, and the `run` arguments for them (model m at $1/$2). */
async function fourGoldRows(): Promise<{ dir: ServedDir['dir']; base: string[] }> {
  const { dir, server } = fresh;
  answerAll = true;
  await dir.write('in.jsonl', goldRows(4));
  return { dir, base: ['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--expect', 'gold', '--price', 'm=1/2'] };
}

/** A first session of `args` that stops at the budget of --limit 2 (exit 4), its two rows judged. */
async function firstTwoJudged(dir: ServedDir['dir'], args: string[]): Promise<void> {
  const first = await runCliInProcess([...args, '--out', 'out', '--quiet', '--limit', '2'], { cwd: dir.path, env: ENV });
  expect(first.code, first.stderr).toBe(4);
}
