/**
 * Text for a terminal with its control characters made visible (`\u001b`), line breaks kept. A
 * server's error message or a record edited by hand may hold escape sequences that, printed raw,
 * retitle the window, clear the screen or hide lines of a report (terminal escape injection).
 */
export function terminalSafe(text: string): string {
  return text.replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
