import { SecretRedactor } from './redact.js';

/**
 * What counts as a secret: a value of at least MIN_SECRET_LENGTH characters. Masking rewrites
 * server text, replies included, wherever the value appears; a shorter value is a placeholder
 * (`CHATBATCH_API_KEY=none` for a keyless vLLM, Ollama or llama.cpp server, `EMPTY`, `x`) or a
 * word, never a credential a provider issues (theirs are 32 characters and more), and masking it
 * would corrupt every reply that holds the word ("none" in a JSON answer) to hide nothing. Such a
 * value is still sent only in its header, but text a server sends is not searched for it.
 */
export const MIN_SECRET_LENGTH = 8;

/**
 * Query parameters whose values are public, never secrets: Azure's `api-version`, a date
 * (https://learn.microsoft.com/en-us/azure/ai-services/openai/reference). Masking `2024-06-01`
 * would rewrite every reply that mentions that date.
 */
export const PUBLIC_QUERY_PARAMETERS: ReadonlySet<string> = new Set(['api-version']);

/**
 * The secrets of one run, and the one way its text is masked of them: built where the run starts
 * (run/run-redactor.ts), handed to whatever redacts for it (the chat client, record and log
 * writers). Per run, not per process: two runs in one process (the library API) know only their
 * own secrets. What counts as a secret is decided here (MIN_SECRET_LENGTH).
 */
export class Redactor {
  private readonly text = new SecretRedactor();
  /**
   * The same secrets, looked for in object keys (field and header names) lower-cased too: kept
   * apart so that the lower-cased search runs only on names.
   */
  private readonly names = new SecretRedactor();

  /**
   * A secret the run sends: the API key, and any other credential (an extra header's value).
   * It is then masked in every form wherever this redactor redacts server text.
   */
  addSecret(secret: string, label = 'key'): void {
    this.remember(secret, label);
  }

  /**
   * A password sent as HTTP Basic credentials travels as base64 of `user:password`
   * (Proxy-Authorization), a form no decoding of the password finds: that form is a secret of its
   * own, in standard and URL-safe base64, without the `=` padding (which an echo may drop). Its
   * replacement shows no characters: those of base64 encode the password's.
   */
  addBasicCredentials(user: string, password: string, label: string): void {
    this.remember(password, label);
    const encoded = Buffer.from(`${user}:${password}`, 'utf8').toString('base64').replace(/=+$/, '');
    this.remember(encoded, `${label}, base64`, false);
    this.remember(encoded.replace(/\+/g, '-').replace(/\//g, '_'), `${label}, base64`, false);
  }

  /**
   * Every value of the request URL's query string but the public ones is treated as a secret (a
   * credential-looking name is refused at start, but a gateway may use any name), once it is
   * long enough to be one (`?v=1` would mask every `1` in every server text).
   */
  addQueryValues(url: URL): void {
    for (const [name, value] of url.searchParams) if (!PUBLIC_QUERY_PARAMETERS.has(name.toLowerCase())) this.remember(value, 'query value');
  }

  get hasSecrets(): boolean {
    return this.text.size > 0;
  }

  /**
   * Whether `text` holds no secret in any form, whether looked for as text or as a name (its
   * ASCII letters lower-cased too), nor any part of one that is masked: then neither does any part of `text`.
   */
  absentFrom(text: string): boolean {
    return this.names.plainlyLacksSecrets(text);
  }

  /** `text` with every secret, in any form a server may echo it, replaced by its mask. */
  redact(text: string): string {
    return this.text.redact(text);
  }

  /**
   * The same for a header name or an object key: the secrets lower-cased are found too (header
   * names arrive lower-cased).
   */
  redactName(text: string): string {
    return this.names.redact(text, true);
  }

  /**
   * A copy of a JSON value (the run's configuration for its manifest, a request body shown by a
   * dry run) with every string and key masked of the run's secrets: a value the user gave that
   * equals one (the key typed again as a header or a `--param`, the shell having filled in
   * `$KEY`) is masked by its value, wherever it stands.
   */
  redactJson<T>(value: T): T {
    if (!this.hasSecrets || value === undefined) return value;
    return JSON.parse(JSON.stringify(value), (_key, item: unknown) => {
      if (typeof item === 'string') return this.redact(item);
      if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
      const clean: Record<string, unknown> = {};
      for (const [name, inner] of Object.entries(item)) {
        Object.defineProperty(clean, this.redactName(name), { value: inner, writable: true, enumerable: true, configurable: true });
      }
      return clean;
    }) as T;
  }

  /** The first `limit` characters of `text`, redacted; see SecretRedactor.redactedPrefix. */
  redactedPrefix(text: string, limit: number): string {
    return this.text.redactedPrefix(text, limit);
  }

  private remember(value: string, label: string, masked = true): void {
    if (value.length < MIN_SECRET_LENGTH) return;
    this.text.register(value, label, masked);
    this.names.register(value, label, masked);
  }
}
