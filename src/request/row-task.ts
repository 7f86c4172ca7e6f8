import type { ReferenceAnswer } from '../reply/reference-answer.js';
import type { ChatRequest } from './chat-request.js';

/** A row ready to send: where it came from and the request built from it. */
export interface RowTask {
  position: number;
  key: string;
  id: string;
  file: string;
  line: number;
  /** The model this copy of the row is sent to (one of the run's models). */
  model: string;
  /** The sample index with `--repeat` above 1; `key` and the request's fingerprint include it. */
  sample?: number | undefined;
  request: ChatRequest;
  /** The X-Client-Request-Id's stem, when not the one derived from `key` (client-request-id.ts). */
  clientRequestIdBase?: string;
  /** With --keep-input: the row's fields its record carries as `input`. */
  input?: Record<string, unknown> | undefined;
  /** With --expect: the row's reference answer (null: the row has none), judged when the row settles. */
  reference?: ReferenceAnswer;
  /** This same request failed in an earlier session and is sent again (`--retry-failed`). */
  failedBefore?: boolean;
}
