import { BlockList, isIP } from 'node:net';

/** The forward proxy a run's requests go through, as the environment names it. */
export interface ProxyChoice {
  /** The proxy URL to connect to, credentials included: a secret when it holds a password. */
  url: string;
  /** The variable it came from: `HTTPS_PROXY`, `https_proxy`, `HTTP_PROXY` or `http_proxy`. */
  variable: string;
  /** The URL with its password masked, for the manifest and messages. */
  shown: string;
  /** The password, percent-decoded, or null: it is masked in whatever a server sends back. */
  password: string | null;
  /** The user name, percent-decoded ('' for none): with the password, the Basic credentials sent to the proxy. */
  username?: string;
}

export type ProxyResolution = { ok: true; proxy: ProxyChoice | null } | { ok: false; problem: string };

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The proxy for requests to `target`, read from the environment as curl reads it: `https_proxy`
 * or `HTTPS_PROXY` for an https:// target, `http_proxy` or `HTTP_PROXY` for an http:// one (the
 * lower-case name wins when both are set; an empty value is unset; an https:// target never falls
 * back to HTTP_PROXY), and none when `no_proxy`/`NO_PROXY` names the target's host. A proxy URL
 * without a scheme means http://, as in curl.
 */
export function proxyFor(target: URL, env: Env): ProxyResolution {
  const names = target.protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY'] : ['http_proxy', 'HTTP_PROXY'];
  const variable = names.find((name) => (env[name] ?? '').trim() !== '');
  if (variable === undefined) return { ok: true, proxy: null };
  const noProxy = firstSet(env, ['no_proxy', 'NO_PROXY']);
  if (noProxy !== undefined && bypassesProxy(target, noProxy)) return { ok: true, proxy: null };

  const raw = env[variable]!.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    return { ok: false, problem: `${variable} is not a proxy URL (expected http://host:port, optionally http://user:password@host:port)` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      ok: false,
      problem: `${variable}: ${url.protocol}// proxies are not supported; chatbatch goes through http:// and https:// proxies`,
    };
  }
  if (url.hostname === '') return { ok: false, problem: `${variable} names no proxy host (expected http://host:port)` };
  // A proxy is a host and port (with a scheme and credentials): curl reads nothing else from it
  // (https://manpages.ubuntu.com/manpages/focal/en/man3/CURLOPT_PROXY.3.html), and undici
  // refuses a proxy URL with a path. A path, query or fragment is dropped, as curl does.
  url.pathname = '/';
  url.search = '';
  url.hash = '';
  const username = safeDecode(url.username);
  const password = url.password === '' ? '' : safeDecode(url.password);
  if (username === null || password === null) {
    return { ok: false, problem: `${variable}: the proxy user name or password has a malformed %-escape (write a % sign as %25)` };
  }
  return { ok: true, proxy: { url: url.href, variable, shown: maskProxyUrl(url), password: password === '' ? null : password, username } };
}

/** `http://user:***@host:port`: the password never shows. */
export function maskProxyUrl(url: URL): string {
  const userinfo = url.username || url.password ? `${url.username}${url.password ? ':***' : ''}@` : '';
  return `${url.protocol}//${userinfo}${url.host}`;
}

function firstSet(env: Env, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') return value;
  }
  return undefined;
}

/**
 * Whether a NO_PROXY list names the target's host, with curl's rules: entries separated by
 * commas (or spaces); `*` alone matches every host; a name matches itself and its subdomains (a
 * leading `.` or `*.` is ignored); an IP address matches itself, and a CIDR range (`10.0.0.0/8`,
 * `fd00::/8`) the addresses in it. An entry may end in `:port` (as undici and Go allow): then
 * only that port matches. Case does not matter.
 */
export function bypassesProxy(target: URL, noProxy: string): boolean {
  const host = unbracket(target.hostname.toLowerCase());
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  const hostFamily = isIP(host);
  for (const item of noProxy.split(/[\s,]+/)) {
    const entry = item.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    const { name, entryPort } = splitPort(entry);
    if (entryPort !== null && entryPort !== port) continue;
    if (hostFamily !== 0) {
      if (matchesAddress(host, hostFamily, name)) return true;
      continue;
    }
    const domain = name.replace(/^\*?\./, '');
    if (domain !== '' && (host === domain || host.endsWith(`.${domain}`))) return true;
  }
  return false;
}

function splitPort(entry: string): { name: string; entryPort: number | null } {
  if (entry.startsWith('[')) {
    const close = entry.indexOf(']');
    const rest = entry.slice(close + 1);
    return { name: entry.slice(1, close), entryPort: /^:\d+$/.test(rest) ? Number(rest.slice(1)) : null };
  }
  // One colon is a port; more than one is a bare IPv6 address (or range).
  const colon = entry.indexOf(':');
  if (colon !== -1 && colon === entry.lastIndexOf(':') && /^\d+$/.test(entry.slice(colon + 1))) {
    return { name: entry.slice(0, colon), entryPort: Number(entry.slice(colon + 1)) };
  }
  return { name: entry, entryPort: null };
}

function matchesAddress(host: string, family: number, entry: string): boolean {
  const slash = entry.indexOf('/');
  const address = unbracket(slash === -1 ? entry : entry.slice(0, slash));
  const entryFamily = isIP(address);
  if (entryFamily !== family) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const list = new BlockList();
  if (slash === -1) {
    list.addAddress(address, type);
  } else {
    const prefix = Number(entry.slice(slash + 1));
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) return false;
    list.addSubnet(address, prefix, type);
  }
  return list.check(host, type);
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Percent-decoded as undici decodes proxy credentials, or null where that would throw. */
function safeDecode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}
