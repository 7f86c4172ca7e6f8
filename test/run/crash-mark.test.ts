import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/index.js';
import { markRunsCrashed } from '../../src/run/crash-marks.js';
import { perTestServedDir, type ServedDir } from '../support/per-test.js';
import { type ReceivedRequest, replyWithEcho } from '../support/scripted-server.js';
import { jsonlOf } from '../support/temp-dir.js';

/** The process's last-resort handler (cli/main.ts) comes as the first request does. */
let crashed = false;
let served!: ServedDir;
perTestServedDir(
  (fresh) => {
    served = fresh;
    crashed = false;
  },
  (request: ReceivedRequest, response: ServerResponse, index: number) => {
    if (!crashed) {
      crashed = true;
      void markRunsCrashed('injected uncaught fault');
    }
    replyWithEcho(request, response, index);
  },
);

describe('an error thrown where nothing awaits it, mid-run', () => {
  it("leaves the manifest `error`, whether the crash's mark or the run's own finish writes it last", async () => {
    // The handler marks every run in progress and stops its sending; the run, stopped, finishes
    // on its own meanwhile. Its finish decided `interrupted` (rows pending) when it came first,
    // and the mark then left it so: seen once in the CLI's test at load 13 ('expected
    // interrupted to be error'), and every time here.
    const { dir, server } = served;
    await dir.write('in.jsonl', jsonlOf(Array.from({ length: 5 }, (_, i) => ({ id: `r${i}`, prompt: `prompt ${i}` }))));
    await run({
      inputs: [dir.file('in.jsonl')],
      model: 'm',
      baseUrl: server.baseUrl,
      apiKey: 'sk-crash-mark-test-0123456789',
      out: dir.file('out'),
      concurrency: 1,
    }).catch(() => null);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.status).toBe('error');
    expect(manifest.sessions.at(-1)).toMatchObject({ status: 'error', error: 'injected uncaught fault' });
  });
});
