/**
 * The first character that cannot go in an HTTP header as chatbatch sends it (printable ASCII
 * only: a control character such as CR or LF would end the header or be refused by the HTTP
 * layer, and bytes beyond ASCII are read differently by different servers), or null.
 * Positions are 1-based and name the character, never the text around it: the text may be a secret.
 */
export function firstUnsendableChar(text: string): { codePoint: string; position: number } | null {
  const bad = /[^\x20-\x7e]/.exec(text);
  if (!bad) return null;
  return { codePoint: `U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`, position: bad.index + 1 };
}
