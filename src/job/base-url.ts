import { PUBLIC_QUERY_PARAMETERS } from '../record/redactor.js';
/**
 * The base URL comes from the operator's console and is never guessed. The request URL is
 * base URL + `/chat/completions`; a base URL that already names the endpoint is refused with a
 * hint instead of being "fixed", because silently rewriting a URL hides a misconfiguration.
 * A query string is kept and goes after the path: Azure OpenAI's deployment URLs carry
 * `?api-version=...` (base .../deployments/d?api-version=V sends POST
 * .../deployments/d/chat/completions?api-version=V, as the openai SDK's AzureOpenAI does).
 */
export type BaseUrlCheck = { ok: true; baseUrl: string; requestUrl: string } | { ok: false; problem: string };

export function checkBaseUrl(raw: string): BaseUrlCheck {
  // Messages show the URL as the manifest would: query values masked, no fragment (either may
  // carry a gateway's token), however wrong the rest of it is.
  const shown = `${shownBaseUrl(raw.split('#')[0]!)}${raw.includes('#') ? '#…' : ''}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: `"${shown}" is not a URL (expected e.g. https://api.example.com/v1)` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, problem: `"${shown}" must start with http:// or https://` };
  }
  if (url.username || url.password) {
    return { ok: false, problem: 'the base URL must not carry credentials; put the key in CHATBATCH_API_KEY' };
  }
  if (url.hash) {
    return { ok: false, problem: `"${shown}" must not have a fragment (#...)` };
  }
  const credential = [...url.searchParams.keys()].find(isCredentialParameter);
  if (credential !== undefined) {
    return {
      ok: false,
      problem: `the base URL's query parameter "${credential}" looks like a credential, and the base URL is written to the manifest; send it as a header instead, e.g. --header '${credential}: \${VARIABLE}'`,
    };
  }
  const path = url.pathname.replace(/\/+$/, '');
  const baseUrl = `${url.origin}${path}${url.search}`;
  if (/\/chat\/completions$/i.test(path)) {
    const suggestion = shownBaseUrl(`${url.origin}${path.replace(/\/chat\/completions$/i, '')}${url.search}`);
    return {
      ok: false,
      problem: `"${shown}" already ends in /chat/completions; give the base URL only (${suggestion}) — chatbatch appends /chat/completions itself`,
    };
  }
  return { ok: true, baseUrl, requestUrl: `${url.origin}${path}/chat/completions${url.search}` };
}

/**
 * Whether a query parameter's name says it carries a credential: Azure's `api-key` and
 * `subscription-key`, Google's `key`, AWS's `X-Amz-Signature`/`X-Amz-Credential`/
 * `X-Amz-Security-Token`, SAS's `sig`, Functions' `code`, OAuth's `access_token` and
 * `client_secret`... Read by its words (split at `-`, `_`, `.`, case ignored): a word that is one
 * of CREDENTIAL_WORDS, or ends in key, token, secret or password (`apikey`, `accessToken`).
 */
export function isCredentialParameter(name: string): boolean {
  return name
    .toLowerCase()
    .split(/[-_.]+/)
    .some((word) => CREDENTIAL_WORDS.has(word) || /(key|token|secret|password|passwd)$/.test(word));
}

const CREDENTIAL_WORDS: ReadonlySet<string> = new Set([
  'sig',
  'signature',
  'code',
  'auth',
  'authorization',
  'credential',
  'credentials',
  'pwd',
  'pass',
  'jwt',
  'bearer',
  'session',
  'sessionid',
]);

/**
 * The base URL as written down (manifest, messages): every query value replaced by `***` but
 * those of PUBLIC_QUERY_PARAMETERS. A value that passed `isCredentialParameter` may still be one (a
 * gateway's `?tenant=` token).
 */
export function shownBaseUrl(baseUrl: string): string {
  const query = baseUrl.indexOf('?');
  if (query === -1) return baseUrl;
  const names = baseUrl
    .slice(query + 1)
    .split('&')
    .map((pair) => {
      const name = pair.split('=')[0]!;
      return PUBLIC_QUERY_PARAMETERS.has(name.toLowerCase()) || !pair.includes('=') ? pair : `${name}=***`;
    });
  return `${baseUrl.slice(0, query)}?${names.join('&')}`;
}
