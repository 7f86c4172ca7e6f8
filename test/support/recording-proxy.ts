import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Exchange {
  method: string;
  url: string;
  requestBody: string;
  status: number;
  contentType: string;
  responseBody: string;
}

export interface RecordingProxy {
  url: string;
  /** Exchanges that got a whole answer, in the order they finished. */
  exchanges: Exchange[];
  close(): Promise<void>;
}

/**
 * A reverse proxy on loopback that forwards each request to `target` and keeps both bodies as
 * they crossed the wire, so a test can check what a client sent and what it was answered. A
 * reset upstream resets the client too; a request the client gives up on is dropped upstream.
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const exchanges: Exchange[] = [];
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const requestBody = Buffer.concat(chunks);
      const headers: IncomingHttpHeaders = { ...req.headers, host: upstream.host };
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('error', () => res.socket?.destroy());
          answer.on('end', () => {
            const responseBody = Buffer.concat(parts);
            exchanges.push({
              method: req.method ?? '',
              url: req.url ?? '',
              requestBody: requestBody.toString('utf8'),
              status: answer.statusCode ?? 0,
              contentType: String(answer.headers['content-type'] ?? ''),
              responseBody: responseBody.toString('utf8'),
            });
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(responseBody);
          });
        },
      );
      forward.on('error', () => res.socket?.destroy());
      res.on('close', () => forward.destroy());
      forward.end(requestBody);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
