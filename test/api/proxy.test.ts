import { afterEach, describe, expect, it } from 'vitest';
import { runApiProgram } from '../support/api-program.js';
import { type ForwardProxy, startForwardProxy } from '../support/forward-proxy.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

/** Runs twice against the simulator: with `proxyEnv: process.env`, then with no proxyEnv. */
const PROGRAM = `
import { run } from 'chatbatch';
import { startSimulator } from './dist/simulator/server.js';
const work = process.env.WORK;
const simulator = await startSimulator({});
const base = { inputs: [work + '/rows.jsonl'], model: 'sim-model', baseUrl: simulator.url, apiKey: 'sk-api-proxy-1234567890' };
const proxied = await run({ ...base, out: work + '/proxied', proxyEnv: process.env });
const direct = await run({ ...base, out: work + '/direct' });
await simulator.close();
console.log(JSON.stringify([proxied.succeeded, direct.succeeded]));
`;

describe("run({ proxyEnv }) from 'chatbatch'", () => {
  let dir: TempDir;
  let proxy: ForwardProxy;
  afterEach(async () => {
    await proxy?.close();
    await dir?.remove();
  });

  it('goes through the proxy its proxyEnv names, and direct without one (it reads no environment itself)', async () => {
    dir = await makeTempDir();
    proxy = await startForwardProxy();
    await dir.write(
      'rows.jsonl',
      jsonlOf([
        { id: 'a', prompt: 'one' },
        { id: 'b', prompt: 'two' },
      ]),
    );
    const result = await runApiProgram(PROGRAM, { WORK: dir.path, http_proxy: proxy.url });
    expect(result, result.stderr).toMatchObject({ code: 0, stdout: '[2,2]\n', stderr: '' });
    expect(proxy.requests).toHaveLength(2);
    expect(proxy.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      expect.stringMatching(/^POST http:\/\/127\.0\.0\.1:\d+\//),
      expect.stringMatching(/^POST http/),
    ]);
  });
});
