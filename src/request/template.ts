/** `{{name}}` placeholders, filled from a row's fields. Whitespace inside the braces is allowed. */
const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;

export type TemplateResult = { ok: true; text: string } | { ok: false; problem: string };

export function templateVariables(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1]!);
}

export function fillTemplate(template: string, fields: Readonly<Record<string, unknown>>): TemplateResult {
  const missing: string[] = [];
  const text = template.replace(PLACEHOLDER, (_whole, name: string) => {
    const value = fields[name];
    if (value === undefined || value === null) {
      missing.push(name);
      return '';
    }
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
  if (missing.length > 0) {
    const list = [...new Set(missing)].map((name) => `{{${name}}}`).join(', ');
    return { ok: false, problem: `template variable ${list} missing from the row` };
  }
  return { ok: true, text };
}
