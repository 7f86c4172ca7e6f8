/**
 * Why the simulator could not listen, as one line for the user: a port in use or not allowed, an
 * address that is not this machine's. Null for any other error (a bug, reported as one).
 */
export function listenFailure(error: unknown, host: string, port: number | undefined): string | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const where = `${host}:${port ?? 0}`;
  switch (code) {
    case 'EADDRINUSE':
      return `--port ${port}: the port is already in use on ${host} (another simulator or server?); choose another port, or leave --port out for a free one`;
    case 'EACCES':
      return `--port ${port}: not allowed to listen on ${where} (ports below 1024 need privileges); choose a port from 1024 to 65535`;
    case 'EADDRNOTAVAIL':
      return `--host ${host}: not an address of this machine; use 127.0.0.1 or one of its own addresses`;
    default:
      return null;
  }
}
