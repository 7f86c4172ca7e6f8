import type { FailureCategory } from './categories.js';

/**
 * The codes chatbatch itself gives a failure when the server gave none (a record's `code`),
 * each with its category and whether another attempt may change the answer. A new client code
 * or retry rule is one row here.
 */
export const CLIENT_CODES = {
  /** No complete response within --timeout-ms (connect, headers and body together). */
  timeout: { category: 'timeout', retryable: true },
  /** The connection failed or broke (refused, reset, DNS, TLS). */
  network_error: { category: 'network', retryable: true },
  /** Cancelled by our own shutdown; the row stays pending, never failed. */
  aborted: { category: 'network', retryable: false },
  /** The body passed the size cap: another attempt would be as large. */
  response_too_large: { category: 'bad_response', retryable: false },
  /** A 2xx that is not a usable completion: retried like a server fault. */
  bad_response: { category: 'bad_response', retryable: true },
  /** The row could not become a request; nothing was sent. */
  invalid_input: { category: 'invalid_input', retryable: false },
  /** The body is compressed in a way chatbatch does not decode (zstd): the same answer would come back. */
  unsupported_encoding: { category: 'bad_response', retryable: false },
  /** The model declined (a `refusal` instead of content): the same request gets the same answer. */
  refused: { category: 'refused', retryable: false },
  /**
   * A 200 with no reply text and `finish_reason: "length"`: the model spent max_tokens before
   * writing any (a reasoning model that spent them thinking). Paid, final: the same request
   * stops the same way; raise max_tokens and run with --retry-failed.
   */
  length: { category: 'incomplete', retryable: false },
  /** A 200 with no reply text and `finish_reason: "content_filter"` (Azure's output filter). Paid, final. */
  content_filter: { category: 'refused', retryable: false },
  /** A 200 whose reply text is empty or null, for no reason it names. Paid, final, never a silent empty success. */
  empty_reply: { category: 'incomplete', retryable: false },
  /**
   * The request can never fit the provider's rate limit (its estimated tokens are more than the
   * whole learned per-window limit, or a 429 said so): 429s would come for ever, so the row fails.
   */
  request_too_large: { category: 'client_error', retryable: false },
  /**
   * A row's requests got 429s again and again while the other rows got through
   * (run/rate-limited-alone.ts): the provider refuses this request itself. Final for the run;
   * `--retry-failed rate_limited` sends it again.
   */
  rate_limited_alone: { category: 'rate_limited', retryable: false },
  /** A 3xx: the base URL is not the endpoint's own address. Never followed; stops the run. */
  redirect: { category: 'client_error', retryable: false },
  /** The proxy asks for credentials (407): the same for every request; stops the run. */
  proxy_auth: { category: 'auth', retryable: false },
  /**
   * With --reply-format json: a reply that is not JSON or does not match --reply-schema. Sent
   * again --reply-retries times (a new sample may parse), not by the transport retry rule.
   */
  invalid_reply: { category: 'invalid_reply', retryable: false },
} as const satisfies Record<string, { category: FailureCategory; retryable: boolean }>;

export type ClientCode = keyof typeof CLIENT_CODES;
