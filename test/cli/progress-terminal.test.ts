import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';
import { HAVE_SCRIPT, runInTerminal, terminalScreen } from '../support/terminal.js';

let dir: TempDir;
beforeAll(async () => {
  dir = await makeTempDir();
  await dir.write('in.jsonl', jsonlOf(Array.from({ length: 30 }, (_, i) => ({ id: `r${i}`, prompt: `hello ${i}` }))));
});
afterAll(() => dir.remove());

/**
 * The run's progress in a real pseudo-terminal: 30 rows at --rpm 1200 (20 at once, then one every
 * 50 ms), redrawn every 20 ms, so the full line ("... concurrency 3, limited by --rpm/--tpm:
 * 1,200 RPM", about 110 characters) is drawn many times.
 */
async function progressAt(columns: number) {
  const result = await runInTerminal(
    ['run', 'in.jsonl', '--simulate', '--model', 'm', '--rpm', '1200', '--out', `out${columns}`, '--force'],
    columns,
    { cwd: dir.path, env: { CHATBATCH_PROGRESS_MS: '20' } },
  );
  expect(result.code, result.stdout + result.stderr).toBe(0);
  // Messages before (the simulator's notice) and the summary after are plain lines, free to wrap:
  // the screen is the live line's part, from its first draw to the summary that erases it.
  const live = result.stdout.slice(result.stdout.indexOf('\r\x1b[2K'), result.stdout.indexOf('chatbatch: 30 row(s)'));
  const drawn = live.split('\r\x1b[2K').filter((text) => / done \(/.test(text));
  return { screen: terminalScreen(live, columns), drawn: drawn.map((text) => text.replace(/\r.*$/s, '')) };
}

describe.skipIf(!HAVE_SCRIPT)('the progress line in a terminal', () => {
  it.each([80, 100])('at %i columns never wraps: each redraw replaces the line, cut to the width', async (columns) => {
    const { screen, drawn } = await progressAt(columns);
    expect(drawn.length).toBeGreaterThanOrEqual(5);
    for (const line of drawn) expect([...line].length, line).toBeLessThan(columns);
    expect(screen.wraps).toBe(0);
    // Every redraw went back over the one line: it is all the screen holds (erased, for the summary).
    expect(screen.lines).toEqual(['']);
    // The parts that matter most stay; at 100 columns there is room for what limits the pace.
    expect(drawn.some((line) => /^\d+\/30 done \(\d+ ok, 0 failed\).*, ETA \d+ s/.test(line))).toBe(true);
    if (columns === 100) expect(drawn.some((line) => line.includes('limited by --rpm/--tpm: 1,200 RPM'))).toBe(true);
  });
});
