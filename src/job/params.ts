import { nearestName } from '../input/nearest-name.js';
import { exceedsJsonDepth, TOO_DEEP } from '../record/json-depth.js';
import { KNOWN_PARAMS, knownParam, notAParam, REFUSED_PARAMS, refusedFeature } from './param-table.js';
import { paramValueProblem } from './param-types.js';

/**
 * Request parameters by opt-in: only what the user names (`--param`, the job's `params`, a Batch
 * line's `body` under `--row-params`) is sent, and all of it is sent as given, with these
 * exceptions:
 * - `stream`, `tools` and the other features the spec rules out are refused (param-table.ts);
 * - a known parameter (param-table.ts) must have a value of its type;
 * - an unknown name within an edit or two of a known one (`temprature`, `max-tokens`,
 *   `Temperature`) is refused as a typo with a "did you mean": sent, it would be ignored by
 *   some servers and refused by others, on every row. `allowed` (`--allow-param NAME`, the
 *   job's `allow_params`) sends such a name as written, and a known one unchecked.
 * Any other name is a vendor's field (`chat_template_kwargs`, `safe_prompt`) and is sent.
 */
export function checkParams(params: unknown, where = 'params', allowed: readonly string[] = []): string[] {
  if (params === undefined) return [];
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    return [`${where} must be an object of request parameters`];
  }
  if (exceedsJsonDepth(params)) return [`${where}: a value ${TOO_DEEP}`];
  const problems: string[] = [];
  // Own names only (Object.entries): `__proto__` in a row's JSON is an own field, refused by name.
  for (const [name, value] of Object.entries(params)) {
    const problem = paramProblem(name, value, allowed);
    if (problem) problems.push(`${where}.${name}: ${problem}`);
  }
  return problems;
}

/**
 * The parameters requests may be built with: `params` when checkParams finds nothing wrong with
 * them, else none (their problems are listed). The one gate `run` (config.ts refuses the job) and
 * `validate` (which goes on to read every row) share: a value nested past MAX_JSON_DEPTH built
 * into a request overflowed the stack in `validate` (exit 70) where `run` refused it (exit 2).
 */
export function sendableParams(params: unknown, allowed: readonly string[] = []): Record<string, unknown> {
  return params !== undefined && checkParams(params, 'params', allowed).length === 0 ? (params as Record<string, unknown>) : {};
}

/** What is wrong with sending `name: value`, or null when it is sent as given. */
export function paramProblem(name: string, value: unknown, allowed: readonly string[]): string | null {
  if (name === '') return 'a parameter needs a name';
  const notParam = notAParam(name);
  if (notParam) return notParam;
  const refused = refusedFeature(name);
  if (refused) return `chatbatch does not support ${refused}; remove it`;
  if (allowed.includes(name)) return null;
  const known = knownParam(name);
  if (known) return paramValueProblem(value, known);
  const meant = likelyTypoOf(name);
  if (meant === null) return null;
  const why = refusedFeature(meant);
  return (
    `unknown parameter; did you mean ${meant}?${why ? ` (chatbatch does not support ${why})` : ''} ` +
    `To send "${name}" as written, name it with --allow-param (job: "allow_params")`
  );
}

/**
 * The known or refused parameter `name` is most likely a mistyped form of, or null. Case is
 * ignored (JSON names are not: `Temperature` is not `temperature`). Up to one edit for names of
 * four characters or fewer, else two: `seed`/`speed` and `top_p`/`top_k` stay apart only because
 * `top_k` is in the table.
 */
export function likelyTypoOf(name: string): string | null {
  const maxDistance = name.length <= 4 ? 1 : 2;
  return nearestName(name, [...Object.keys(KNOWN_PARAMS), ...Object.keys(REFUSED_PARAMS)], maxDistance);
}

/** Problems with the names of `--allow-param` (the job's `allow_params`): the refused features and the request's own parts cannot be allowed. */
export function allowedParamsProblems(allowed: readonly string[]): string[] {
  const problems: string[] = [];
  for (const name of allowed) {
    const reason = notAParam(name) ?? (refusedFeature(name) && `chatbatch does not support ${refusedFeature(name)}`);
    if (reason) problems.push(`${name} cannot be allowed: ${reason}`);
  }
  return problems;
}

/**
 * The run's params: the job file's, with the command line's (`--param`, or the library's
 * `params`) over them, name by name. A value that is not an object is passed on as it is, for
 * checkParams to refuse.
 */
export function mergedParams(fromFlags: unknown, fromJob: unknown): unknown {
  const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (fromFlags === undefined) return fromJob ?? {};
  if (fromJob === undefined || !isObject(fromFlags) || !isObject(fromJob)) return fromFlags;
  return { ...(fromJob as object), ...(fromFlags as object) };
}
