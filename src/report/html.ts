/**
 * HTML built so that nothing from a file can become markup: every value put into an `html`
 * template is escaped, whatever its type, unless it is itself `Html` (a fragment built the same
 * way, or a trusted literal through `trustedHtml`).
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let text = strings[0]!;
  values.forEach((value, i) => {
    text += fragment(value) + strings[i + 1]!;
  });
  return new Html(text);
}

/** Markup the code itself wrote (CSS, the page's script, an SVG built from numbers and escaped labels). */
export function trustedHtml(text: string): Html {
  return new Html(text);
}

function fragment(value: Value): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(fragment).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Data for the page's script: JSON inside `<script type="application/json">`, which the browser
 * never runs. `<` is written as \u003c so no value can close the element (`</script>`) or open a
 * comment; U+2028/U+2029 are escaped for older JSON-in-JS readers.
 */
export function jsonScript(id: string, value: unknown): Html {
  const json = JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return html`<script type="application/json" id="${id}">${trustedHtml(json)}</script>`;
}
