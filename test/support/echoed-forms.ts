/**
 * The ways a server may write back a string it was sent: what a key echoed by a hostile or
 * careless server looks like in a header, a JSON body, an HTML page or a URL. Every value is
 * the whole key in one form; tests look for each of them in everything chatbatch writes.
 */
export function echoedForms(key: string): Record<string, string> {
  const json = (text: string) => JSON.stringify(text).slice(1, -1);
  const html = (text: string) =>
    text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
  const notAlphanumeric = /[^A-Za-z0-9]/g;
  const hex = (char: string) => char.charCodeAt(0).toString(16).padStart(2, '0');
  return {
    raw: key,
    'JSON-escaped': json(key),
    'JSON-escaped as Go writes it': json(key).replace(/&/g, '\\u0026').replace(/</g, '\\u003c').replace(/>/g, '\\u003e'),
    'as JSON \\u escapes (upper-case hex)': key.replace(notAlphanumeric, (c) => `\\u${hex(c).padStart(4, '0').toUpperCase()}`),
    'HTML-escaped (named)': html(key),
    'HTML-escaped (decimal)': key.replace(notAlphanumeric, (c) => `&#${c.charCodeAt(0)};`),
    'HTML-escaped (hex)': key.replace(notAlphanumeric, (c) => `&#x${hex(c)};`),
    'percent-encoded': encodeURIComponent(key),
    'percent-encoded (every symbol, lower-case hex)': key.replace(notAlphanumeric, (c) => `%${hex(c)}`),
    'JSON-escaped twice': json(json(key)),
    'JSON-escaped, then HTML-escaped': html(json(key)),
    'HTML-escaped, then JSON-escaped as Go writes it': json(html(key)).replace(/&/g, '\\u0026'),
    'percent-encoded twice': encodeURIComponent(encodeURIComponent(key)),
  };
}
