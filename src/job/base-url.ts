/**
 * The base URL comes from the operator's console and is never guessed. The request URL is
 * base URL + `/chat/completions`; a base URL that already names the endpoint is refused with a
 * hint instead of being "fixed", because silently rewriting a URL hides a misconfiguration.
 */
export type BaseUrlCheck = { ok: true; baseUrl: string; requestUrl: string } | { ok: false; problem: string };

export function checkBaseUrl(raw: string): BaseUrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: `"${raw}" is not a URL (expected e.g. https://api.example.com/v1)` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, problem: `"${raw}" must start with http:// or https://` };
  }
  if (url.username || url.password) {
    return { ok: false, problem: 'the base URL must not carry credentials; put the key in CHATBATCH_API_KEY' };
  }
  if (url.search || url.hash) {
    return { ok: false, problem: `"${raw}" must not have a query string or fragment` };
  }
  const baseUrl = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  if (/\/chat\/completions$/i.test(baseUrl)) {
    const suggestion = baseUrl.replace(/\/chat\/completions$/i, '');
    return {
      ok: false,
      problem: `"${raw}" already ends in /chat/completions; give the base URL only (${suggestion}) — chatbatch appends /chat/completions itself`,
    };
  }
  return { ok: true, baseUrl, requestUrl: `${baseUrl}/chat/completions` };
}
