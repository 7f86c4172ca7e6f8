import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';

export interface ForwardProxyOptions {
  /** `user:password`: requests without the matching `Proxy-Authorization` get a 407. */
  credentials?: string;
  /** Answer every CONNECT with this status instead of opening the tunnel. */
  refuseTunnelsWith?: number;
  /**
   * Answers an authorized absolute-form request itself instead of forwarding it (a proxy that
   * shows the request's headers on its error page, as some do in debug mode).
   */
  answer?: (req: IncomingMessage, res: ServerResponse) => void;
}

export interface ForwardProxy {
  /** `http://127.0.0.1:PORT`, no credentials. */
  url: string;
  port: number;
  /** Absolute-form requests (plain http:// targets), as the proxy received them. */
  requests: Array<{ method: string; url: string; proxyAuthorization: string | undefined }>;
  /** CONNECT requests (https:// targets): `host:port`. */
  tunnels: Array<{ target: string; proxyAuthorization: string | undefined }>;
  close(): Promise<void>;
}

/**
 * A forward proxy on loopback, as curl and squid speak it: `POST http://host/path` requests are
 * forwarded, CONNECT opens a TCP tunnel. Counts both, so a test can tell a run went through it.
 */
export async function startForwardProxy(options: ForwardProxyOptions = {}): Promise<ForwardProxy> {
  const requests: ForwardProxy['requests'] = [];
  const tunnels: ForwardProxy['tunnels'] = [];
  const expected = options.credentials ? `Basic ${Buffer.from(options.credentials).toString('base64')}` : undefined;
  const authorized = (req: IncomingMessage): boolean => expected === undefined || req.headers['proxy-authorization'] === expected;
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', proxyAuthorization: req.headers['proxy-authorization'] });
    if (!authorized(req)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"', 'content-type': 'text/plain' });
      res.end('proxy authentication required');
      return;
    }
    if (options.answer) return options.answer(req, res);
    if (!/^http:\/\//.test(req.url ?? '')) {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end('a forward proxy takes absolute-form requests');
      return;
    }
    const target = new URL(req.url!);
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: target.host };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const forward = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: target.pathname + target.search, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('bad gateway');
    });
    req.pipe(forward);
  });

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.push({ target: req.url ?? '', proxyAuthorization: req.headers['proxy-authorization'] });
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    if (!authorized(req))
      return void client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n\r\n');
    if (options.refuseTunnelsWith) return void client.end(`HTTP/1.1 ${options.refuseTunnelsWith} Refused\r\ncontent-length: 0\r\n\r\n`);
    const [host, port] = splitHostPort(req.url ?? '');
    const upstream = connect(port, host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function splitHostPort(target: string): [string, number] {
  const colon = target.lastIndexOf(':');
  return [target.slice(0, colon).replace(/^\[|\]$/g, ''), Number(target.slice(colon + 1))];
}
