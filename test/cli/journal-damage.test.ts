import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { runCli } from '../support/cli-in-process.js';
import { perTestRecordedRun } from '../support/recorded-run.js';
import type { TempDir } from '../support/temp-dir.js';

const ROWS = 12;
const ALL_IDS = Array.from({ length: ROWS }, (_, i) => `r${i}`);
const JOURNAL = 'out/.chatbatch/journal.jsonl';

let dir: TempDir;
let simulator: RunningSimulator;
/** Row ids in the order the endpoint received their requests. */
let sent: string[];

perTestRecordedRun(ALL_IDS, (fresh) => ({ dir, simulator, sent } = fresh));

function run(extra: string[] = []) {
  return runCli(['run', 'in.jsonl', '--base-url', simulator.url, '--model', 'sim', '--out', 'out', '--quiet', ...extra], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: 'sk-journal-damage-000000000' },
  });
}

/** The journal's lines after its header (no newlines), in file order, and the row key of each: a finished run's refer to its records. */
async function journalLines(): Promise<{ header: string; lines: string[]; keys: string[] }> {
  const [header, ...lines] = (await dir.read(JOURNAL)).split('\n').slice(0, -1);
  return { header: header!, lines, keys: lines.map((line) => JSON.parse(line.split('\t')[1]!) as string) };
}

/** A line's checksum and the rest: `@<crc>` and its fields. */
const checksumOf = (line: string) => line.slice(0, line.indexOf('\t'));
const bodyOf = (line: string) => line.slice(line.indexOf('\t'));

describe('a finished run whose journal was damaged in the middle', () => {
  it('reads nothing from a line that does not verify: --resume re-sends exactly the rows of the damaged lines and says how many lines it dropped', async () => {
    expect((await run()).code).toBe(0);
    const { header, lines, keys } = await journalLines();
    expect(lines).toHaveLength(ROWS);
    expect(lines.every((line) => line.startsWith('@'))).toBe(true); // every record is in output.jsonl, once
    const damaged = [...lines];
    damaged[0] = lines[0]!.slice(0, -7); // cut short (its newline kept)
    damaged[2] = lines[2]!.replace(/\to\t(\d)/, (_, digit) => `\to\t${(Number(digit) + 1) % 10}`); // an offset overwritten
    damaged[7] = checksumOf(lines[7]!) + bodyOf(lines[8]!); // another row's line pasted in after its checksum
    damaged.splice(4, 2, lines[4]! + lines[5]!); // two lines merged: a newline lost
    await dir.write(JOURNAL, `${[header, ...damaged].join('\n')}\n`);

    sent.length = 0;
    const resumed = await run(['--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      'dropped 4 damaged journal line(s) (checksum mismatch): rows with no other line that verifies are sent again',
    );
    expect(sent.sort()).toEqual([keys[0], keys[2], keys[4], keys[5], keys[7]].sort());
    const output = await dir.jsonl<{ id: string; reply: string }>('out/output.jsonl');
    expect(output.map((record) => record.id)).toEqual(ALL_IDS);
    // Each row has its own reply, the one whose line was given another row's included.
    for (const record of output) expect(record.reply).toContain(`ask ${record.id}"`);
    expect(await dir.jsonl('out/errors.jsonl')).toEqual([]);

    // The resume's end wrote a journal of its own: the damaged lines are gone, nothing is sent again.
    sent.length = 0;
    const again = await run(['--resume']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('dropped');
    expect(sent).toEqual([]);
    expect((await dir.jsonl<{ id: string }>('out/output.jsonl')).map((record) => record.id)).toEqual(ALL_IDS);
  });

  it('copies no record that changed in output.jsonl (edited, cut short, removed): their rows are sent again, and the resume says how many', async () => {
    expect((await run()).code).toBe(0);
    const records = (await dir.read('out/output.jsonl')).split('\n').slice(0, -1);
    records[2] = records[2]!.replace('Simulated', 'Simulxted'); // same length: only its CRC tells
    await dir.write('out/output.jsonl', `${records.slice(0, -1).join('\n')}\n`); // the last one cut off
    sent.length = 0;
    const resumed = await run(['--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      '2 record(s) the journal refers to in output.jsonl or errors.jsonl are not there as they were written',
    );
    expect(sent.sort()).toEqual(['r11', 'r2']);
    const output = await dir.jsonl<{ id: string; reply: string }>('out/output.jsonl');
    expect(output.map((record) => record.id)).toEqual(ALL_IDS);
    expect(output[2]!.reply).toContain('Simulated');

    await rm(dir.file('out/output.jsonl'));
    sent.length = 0;
    const again = await run(['--resume']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`${ROWS} record(s) the journal refers to`);
    expect(sent.sort()).toEqual([...ALL_IDS].sort());
    expect((await dir.jsonl<{ id: string }>('out/output.jsonl')).map((record) => record.id)).toEqual(ALL_IDS);
  });

  it('a journal of an older chatbatch (no checksums) does not crash a resume: its rows are sent again, and it says why', async () => {
    expect((await run()).code).toBe(0);
    const records = (await dir.read('out/output.jsonl')).split('\n').slice(0, -1);
    // The format before checksums: `<entry>\t<record>`.
    const old = records.map((record) => {
      const { id, fingerprint } = JSON.parse(record) as { id: string; fingerprint: string };
      return `${JSON.stringify({ k: id, f: fingerprint, o: 1 })}\t${record}\n`;
    });
    await dir.write(JOURNAL, old.join(''));
    sent.length = 0;
    const resumed = await run(['--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`dropped ${ROWS} journal line(s) written by an older chatbatch without a checksum`);
    expect(sent.sort()).toEqual([...ALL_IDS].sort());
    expect((await dir.jsonl<{ id: string }>('out/output.jsonl')).map((record) => record.id)).toEqual(ALL_IDS);
  });
});
