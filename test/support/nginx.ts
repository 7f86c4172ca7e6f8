import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import path from 'node:path';
import { makeTempDir, type TempDir } from './temp-dir.js';

/** Debian's nginx (`apt-get install nginx-light`), a limiter nobody on the team wrote. */
export const NGINX = '/usr/sbin/nginx';
/** For `it.skipIf(!hasNginx)`: CI installs it (.ci/run), a developer's machine may not have it. */
export const hasNginx = existsSync(NGINX);

export interface NginxOptions {
  /** Where nginx forwards everything: `http://127.0.0.1:PORT` (the simulator). */
  upstream: string;
  /** nginx's `limit_req`: `rate` as nginx writes it (`20r/s`, `120r/m`), `burst` (default 0), `nodelay`. */
  limitReq?: { rate: string; burst?: number; nodelay?: boolean };
  /** nginx's `limit_conn`: at most this many connections with a request in progress, past it 429. */
  limitConn?: number;
}

export interface AccessLogEntry {
  /** When nginx finished the request, ms since the epoch. */
  at: number;
  status: number;
}

export interface RunningNginx {
  url: string;
  /** The requests nginx answered, in order, from its access log. */
  accessLog(): Promise<AccessLogEntry[]>;
  close(): Promise<void>;
}

/**
 * Starts nginx in the foreground with its config, pid, logs and temp paths in a temp dir,
 * listening on a free loopback port, proxying to `upstream`. Its limit_req answers 429 (no
 * header, an HTML page) past the rate, like a proxy in front of a model server.
 */
export async function startNginx(options: NginxOptions): Promise<RunningNginx> {
  const dir = await makeTempDir('chatbatch-nginx-');
  const port = await freePort();
  await mkdir(dir.file('temp'));
  const config = await dir.write('nginx.conf', nginxConfig(dir, port, options));
  const child = spawn(NGINX, ['-p', dir.path, '-e', dir.file('error.log'), '-c', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    await listening(child, port, () => stderr);
  } catch (error) {
    await stop(child);
    await dir.remove();
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    accessLog: () => accessLog(dir),
    close: async () => {
      await stop(child);
      await dir.remove();
    },
  };
}

function nginxConfig(dir: TempDir, port: number, options: NginxOptions): string {
  const upstream = new URL(options.upstream);
  const limit = options.limitReq;
  const temp = (name: string) => `${name}_temp_path ${dir.file(`temp/${name}`)};`;
  return `
daemon off;
${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
pid ${dir.file('nginx.pid')};
error_log ${dir.file('error.log')} warn;
events { worker_connections 1024; }
http {
  log_format timed '$msec $status';
  access_log ${dir.file('access.log')} timed;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
  ${limit ? `limit_req_zone $binary_remote_addr zone=chatbatch:1m rate=${limit.rate};` : ''}
  limit_req_status 429;
  ${options.limitConn ? 'limit_conn_zone $binary_remote_addr zone=inflight:1m;' : ''}
  limit_conn_status 429;
  server {
    listen 127.0.0.1:${port};
    location / {
      ${limit ? `limit_req zone=chatbatch${limit.burst ? ` burst=${limit.burst}` : ''}${limit.nodelay ? ' nodelay' : ''};` : ''}
      ${options.limitConn ? `limit_conn inflight ${options.limitConn};` : ''}
      proxy_pass http://${upstream.host};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`;
}

/** A port free on loopback right now (nginx binds it a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once nginx accepts connections on `port`; rejects, with its error log, if it exits first. */
async function listening(child: ChildProcess, port: number, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`nginx exited at start: ${stderr()}`);
    if (await accepts(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`nginx did not listen on ${port} within 10 s: ${stderr()}`);
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** SIGQUIT: nginx's graceful stop (it finishes what it serves); waits for it to exit. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGQUIT');
  });
}

async function accessLog(dir: TempDir): Promise<AccessLogEntry[]> {
  let text: string;
  try {
    text = await readFile(path.join(dir.path, 'access.log'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [msec = '', status = ''] = line.split(' ');
      return { at: Math.round(Number(msec) * 1000), status: Number(status) };
    });
}
