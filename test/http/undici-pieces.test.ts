import { readFile } from 'node:fs/promises';
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { Pool, parseHeaders, proxyAgent } from '../../src/http/undici-pieces.js';

// src/http/undici-pieces.ts takes undici's Pool, ProxyAgent and header parser from the files its
// package root takes them from (the root costs ~0.1 s and ~20 MB a start). Those paths are
// undici's own, not its API: these checks fail on an undici that moved or changed them.

describe("undici's pieces", () => {
  it('are the very objects the package root exports', async () => {
    expect(Pool).toBe(undici.Pool);
    expect(parseHeaders).toBe(undici.util.parseHeaders);
    const agent = proxyAgent({ uri: 'http://127.0.0.1:9' });
    try {
      expect(agent).toBeInstanceOf(undici.ProxyAgent);
    } finally {
      await agent.close();
    }
  });

  it("give the proxy client the root's connect(), which opens an HTTPS tunnel", async () => {
    const connect = (await import('undici/lib/api/api-connect.js')).default;
    // With the root loaded (as here), every dispatcher has it already.
    expect(undici.Dispatcher.prototype.connect).toBe(connect);
  });

  it('come from one undici version, pinned', async () => {
    const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const installed = JSON.parse(await readFile(new URL('../../node_modules/undici/package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(manifest.dependencies.undici).toMatch(/^\d+\.\d+\.\d+$/);
    expect(installed.version).toBe(manifest.dependencies.undici);
  });
});
