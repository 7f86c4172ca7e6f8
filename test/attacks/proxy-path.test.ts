import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../src/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/server.js';
import { type ForwardProxy, startForwardProxy } from '../support/forward-proxy.js';
import { jsonlOf, makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
let simulator: RunningSimulator;
let proxy: ForwardProxy;
beforeEach(async () => {
  dir = await makeTempDir();
  simulator = await startSimulator();
  proxy = await startForwardProxy();
});
afterEach(async () => {
  await proxy.close();
  await simulator.close();
  await dir.remove();
});

describe('HTTP_PROXY with a path, query or fragment', () => {
  for (const tail of ['/corp/proxy', '/?via=office', '#section', '/p/?q=1#f']) {
    it(`goes through the proxy and ignores "${tail}", as curl does`, async () => {
      const input = await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'one' }]));
      const report = await run({
        inputs: [input],
        model: 'sim',
        baseUrl: simulator.url,
        apiKey: 'sk-proxy-path-00000000',
        out: dir.file(`out${tail.length}`),
        proxyEnv: { HTTP_PROXY: `${proxy.url}${tail}` },
      });
      expect(report.exitCode).toBe(0);
      expect(proxy.requests).toHaveLength(1);
    });
  }
});
