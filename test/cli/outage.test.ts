import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { OUTAGE_STREAK } from '../../src/pace/outage-breaker.js';
import { runCli, startCliInProcess } from '../support/cli-in-process.js';
import { perTestDir } from '../support/per-test.js';
import { type ReceivedRequest, replyWithEcho, type ScriptedServer, startScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

const KEY = 'sk-outage-test-key-0123456789abcdef';
const GATEWAY_PAGE =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n';
let dir: TempDir;
let server: ScriptedServer;

perTestDir((fresh) => (dir = fresh));
afterEach(() => server?.close());

const rows = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `r${i}`, prompt: `p${i}` }));

/** nginx's page for a dead upstream, as nginx sends it. */
function gatewayPage(response: ServerResponse, index: number): void {
  response.writeHead(502, {
    'content-type': 'text/html',
    'content-length': Buffer.byteLength(GATEWAY_PAGE),
    'x-request-id': `req-${index}`,
  });
  response.end(GATEWAY_PAGE);
}

/**
 * A gateway whose upstream goes down after `upFirst` answers: while `down()` says so it answers
 * nginx's HTML 502 page, and every third request it resets the connection instead.
 */
function flakyGateway(upFirst: number, down: (downSince: number) => boolean) {
  const seen = { ok: 0, failed: 0, downSince: 0 };
  const respond = (request: ReceivedRequest, response: ServerResponse, index: number): void => {
    if (seen.ok >= upFirst && seen.downSince === 0) seen.downSince = Date.now();
    if (seen.downSince !== 0 && down(seen.downSince)) {
      seen.failed++;
      if (seen.failed % 3 === 0) response.socket?.destroy();
      else gatewayPage(response, index);
      return;
    }
    seen.ok++;
    replyWithEcho(request, response, index);
  };
  return { seen, respond };
}

const run = (extra: string[]) => ['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm-1', '--out', 'out', ...extra];

describe('an endpoint that goes down mid-run', () => {
  it('pauses the run and probes; when the endpoint is back every row succeeds with --max-attempts 2 and no retry storm', async () => {
    const ROWS = 40;
    await dir.write('in.jsonl', jsonlOf(rows(ROWS)));
    // Down for 1.5 s from its first failure, then up again.
    const gateway = flakyGateway(8, (since) => Date.now() - since < 1500);
    server = await startScriptedServer(gateway.respond);

    const result = await runCli(run(['--concurrency', '4', '--max-attempts', '2', '--max-outage-ms', '20000']), {
      cwd: dir.path,
      env: { CHATBATCH_API_KEY: KEY, CHATBATCH_PROGRESS_MS: '100' },
    });
    expect(result.code, result.stderr).toBe(0);
    const output = await dir.jsonl<{ id: string; attempts: number; history: Array<{ status: number | null; code: string | null }> }>(
      'out/output.jsonl',
    );
    expect(output.map((record) => record.id)).toEqual(rows(ROWS).map((row) => row.id));
    expect(await dir.jsonl('out/errors.jsonl')).toEqual([]);

    // The endpoint really was down, long enough to pause the run...
    expect(gateway.seen.failed).toBeGreaterThanOrEqual(OUTAGE_STREAK);
    expect(output.some((record) => record.history.some((attempt) => attempt.code !== null))).toBe(true);
    expect(result.stderr).toContain(`the endpoint looks down: ${OUTAGE_STREAK} answers in a row were server errors, resets or timeouts`);
    expect(result.stderr).toMatch(/endpoint down since \d\d:\d\d:\d\d, (next probe in \d+\.\d s|probing)/);
    expect(result.stderr).toMatch(/the endpoint answers again after \d+ s down; the run goes on/);
    // ...and the outage cost the streak, the requests in flight when it paused and a few probes
    // (about 0.2, 0.4, 0.8 s apart), not --max-attempts per row: 64 failures before this breaker.
    expect(gateway.seen.failed).toBeLessThanOrEqual(OUTAGE_STREAK + 4 + 6);
    expect(server.received.length).toBe(ROWS + gateway.seen.failed);
  }, 30_000);

  it('down past --max-outage-ms: exit 3 naming the last answer and trace id, rows pending, none failed; --resume once it is back runs every row once', async () => {
    const ROWS = 12;
    await dir.write('in.jsonl', jsonlOf(rows(ROWS)));
    let up = false;
    const gateway = flakyGateway(5, () => !up);
    server = await startScriptedServer(gateway.respond);
    const runOnce = (...extra: string[]) =>
      runCli(run(['--concurrency', '4', '--max-attempts', '2', '--max-outage-ms', '1500', '--quiet', ...extra]), {
        cwd: dir.path,
        env: { CHATBATCH_API_KEY: KEY },
      });

    const stopped = await runOnce();
    expect(stopped.code, stopped.stderr).toBe(3);
    for (const fact of [
      'longer than --max-outage-ms (1.5 s), so the run stopped early',
      server.baseUrl,
      'm-1',
      "provider's status page",
      '--resume',
    ]) {
      expect(stopped.stderr).toContain(fact);
    }
    // The last answer with a status (the gateway's page, excerpted) and its trace id, even when
    // the very last attempt was a reset.
    expect(stopped.stderr).toMatch(/last HTTP answer: HTTP 502, code http_502: .*502 Bad Gateway.*nginx\/1\.22\.1/);
    const traceId = Number(/trace id: req-(\d+)/.exec(stopped.stderr)?.[1]);
    expect(traceId).toBeGreaterThanOrEqual(5);
    expect(server.received.length).toBeGreaterThan(traceId);
    expect(stopped.stderr).not.toContain(KEY);
    expect(await dir.jsonl('out/errors.jsonl')).toEqual([]);
    expect((await dir.jsonl('out/output.jsonl')).length).toBe(5);
    const aborted = JSON.parse(await dir.read('out/manifest.json'));
    expect(aborted.status).toBe('aborted');
    expect(aborted.counts).toMatchObject({ rows: ROWS, succeeded: 5, failed: 0, pending: ROWS - 5 });
    // The 7 rows left got more outage answers than their 2 attempts each (the streak, then
    // probes about 15 ms doubling to 150 ms apart), and none failed: the outage spent none of
    // their attempts. Still a bounded number: no retry storm.
    expect(gateway.seen.failed).toBeGreaterThan((ROWS - 5) * 2);
    expect(gateway.seen.failed).toBeLessThanOrEqual(OUTAGE_STREAK + 4 + 25);

    up = true;
    const sentBefore = server.received.length;
    const resumed = await runOnce('--resume');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await dir.jsonl<{ id: string }>('out/output.jsonl')).map((record) => record.id)).toEqual(rows(ROWS).map((row) => row.id));
    expect(server.received.length - sentBefore).toBe(ROWS - 5);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.sessions.map((session: { status: string }) => session.status)).toEqual(['aborted', 'complete']);
    expect(manifest.counts).toMatchObject({ rows: ROWS, succeeded: ROWS, failed: 0, pending: 0 });
  }, 30_000);

  it('a run paused for an outage stops promptly on Ctrl-C, rows pending', async () => {
    const ROWS = 30;
    await dir.write('in.jsonl', jsonlOf(rows(ROWS)));
    const gateway = flakyGateway(3, () => true);
    server = await startScriptedServer(gateway.respond);
    // The default --max-outage-ms (5 min) would keep it paused far longer than this test may take.
    const { stop, done, stderr } = startCliInProcess(run(['--concurrency', '4']), { cwd: dir.path, env: { CHATBATCH_API_KEY: KEY } });
    await waitFor(() => stderr().includes('the endpoint looks down'));
    stop();
    const stopped = await done;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(await dir.jsonl('out/errors.jsonl')).toEqual([]);
    const manifest = JSON.parse(await dir.read('out/manifest.json'));
    expect(manifest.status).toBe('interrupted');
    expect(manifest.counts).toMatchObject({ rows: ROWS, succeeded: 3, failed: 0, pending: ROWS - 3 });
  }, 30_000);
});
