/**
 * What chatbatch takes from undici, from the files undici's package root takes it from. The root
 * loads all of undici (fetch, WebSocket, caches, mocks: ~110 modules) and, through its web
 * classes, Node's own bundled copy of undici: ~0.1 s of CPU and ~20 MB at every start of a run,
 * where these pieces cost ~0.03 s and ~11 MB (docs/benchmarks.md, "At rest and at the start").
 * undici is pinned to one version in package.json, and test/http/undici-pieces.test.ts checks
 * that each piece is what the root exports.
 */
import type { Pool as UndiciPool, ProxyAgent as UndiciProxyAgent } from 'undici';
import connect from 'undici/lib/api/api-connect.js';
import utilPiece from 'undici/lib/core/util.js';
import PoolPiece from 'undici/lib/dispatcher/pool.js';
import ProxyAgentPiece from 'undici/lib/dispatcher/proxy-agent.js';

export const Pool = PoolPiece;
/** undici's header parsing: `parseHeaders(rawHeaders)` turns the raw pairs into an object. */
export const parseHeaders = utilPiece.parseHeaders;

/**
 * A ProxyAgent. Its HTTPS tunnel is opened with `connect()` on its client to the proxy, one of
 * the methods (request, stream, connect...) undici's root adds to every dispatcher's prototype:
 * without the root, that client gets it here, and nothing else does.
 */
export function proxyAgent(options: UndiciProxyAgent.Options): UndiciProxyAgent {
  return new ProxyAgentPiece({
    ...options,
    clientFactory: (origin: URL, clientOptions: object) => {
      const client: UndiciPool = new PoolPiece(origin, clientOptions);
      if (typeof client.connect !== 'function') Object.defineProperty(client, 'connect', { value: connect });
      return client;
    },
  });
}
