/**
 * Which request parameters a request carried, for naming the one an endpoint refuses: a
 * parameter is sent as given (job/params.ts), so a server that does not know it answers 400 or
 * 422, and a run should say which one instead of failing every row alike. Pure: the answer
 * table decides whether an answer is such a refusal; these only name the parameter.
 */

/** The request's own parts: every other field of a body is a parameter the user named. */
const REQUEST_PARTS = new Set(['model', 'messages']);

/**
 * The parameters in a request body (`ChatRequest.body`, the JSON sent), in the body's order
 * (sorted by name, see chat-request.ts); [] for a body that is not a JSON object.
 */
export function paramsSent(body: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return [];
  return Object.keys(parsed).filter((name) => !REQUEST_PARTS.has(name));
}

/**
 * The sent parameter an error names, or null: a text that is exactly a sent name (`error.param`
 * where the server fills it), else a sent name standing as a whole word (between characters no
 * name has) in a text. OpenAI answers an unknown parameter with `param: null` and the name only
 * in the message: 400 `{"message": "Unrecognized request argument supplied: reasoning_effort",
 * "type": "invalid_request_error", "param": null, "code": null}`
 * (https://github.com/coroot/coroot/issues/698). So give `error.param` first, then the message;
 * whether the answer is a refusal of a parameter at all is the caller's to decide from status
 * and type, never from the message alone. The first text that names one wins; within a text,
 * the longest name (`top_logprobs` before `logprobs`).
 */
export function sentParamNamed(sent: readonly string[], texts: ReadonlyArray<string | null | undefined>): string | null {
  const byLength = [...sent].sort((a, b) => b.length - a.length);
  for (const text of texts) {
    if (typeof text !== 'string' || text === '') continue;
    if (sent.includes(text)) return text;
    const found = byLength.find((name) => namesWord(text, name));
    if (found !== undefined) return found;
  }
  return null;
}

/** Whether `name` appears in `text` with no letter, digit or `_` right before or after it. */
function namesWord(text: string, name: string): boolean {
  const isNameChar = (char: string | undefined) => char !== undefined && /[A-Za-z0-9_]/.test(char);
  for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + 1)) {
    if (!isNameChar(text[at - 1]) && !isNameChar(text[at + name.length])) return true;
  }
  return false;
}

/**
 * The parameters every request carries: the job's, unless rows bring their own (--row-params),
 * when a row may carry another value of any of them, and an error naming one is about that row.
 */
export function paramsEveryRowCarries(config: { params: Readonly<Record<string, unknown>>; rowParams: boolean }): string[] {
  return config.rowParams ? [] : Object.keys(config.params);
}
