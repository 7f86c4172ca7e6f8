import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fsMeaning, isFsError } from '../state/fs-problem.js';
import { firstUnsendableChar } from './header-chars.js';

export const DEFAULT_API_KEY_ENV = 'CHATBATCH_API_KEY';
/** The `_FILE` convention of Docker and Kubernetes secrets: a variable naming a file that holds the key. */
export const API_KEY_FILE_ENV = 'CHATBATCH_API_KEY_FILE';
/** A key file holds one key; a JWT-sized token is a few KiB. */
export const MAX_KEY_FILE_BYTES = 64 * 1024;

/** Where the key is read from: an environment variable or a file. */
export type KeySource = { variable: string; file: null } | { variable: null; file: string };

export interface KeyPlaces {
  file?: string | undefined;
  variable?: string | undefined;
}

/**
 * First match wins: the flags (`--api-key-file`, `--api-key-env`), then `CHATBATCH_API_KEY_FILE`
 * in the environment, then the job (`api_key_file`, `api_key_env`), then `CHATBATCH_API_KEY`.
 * A job naming its key's place outranks the default variable, as `api_key_env` always has.
 */
export function chooseKeySource(
  flags: KeyPlaces,
  job: KeyPlaces,
  env: Readonly<Record<string, string | undefined>>,
  problems: string[],
): KeySource {
  if (flags.file !== undefined && flags.variable !== undefined) problems.push('give --api-key-file or --api-key-env, not both');
  if (flags.file !== undefined) return { variable: null, file: flags.file };
  if (flags.variable !== undefined) return { variable: flags.variable, file: null };
  const fileFromEnv = env[API_KEY_FILE_ENV]?.trim();
  if (fileFromEnv) {
    if (env[DEFAULT_API_KEY_ENV]?.trim()) {
      problems.push(
        `${API_KEY_FILE_ENV} and ${DEFAULT_API_KEY_ENV} are both set: unset one (${API_KEY_FILE_ENV} names a file holding the key)`,
      );
    }
    return { variable: null, file: fileFromEnv };
  }
  if (job.file !== undefined && job.variable !== undefined) problems.push('the job gives both api_key_file and api_key_env: keep one');
  if (job.file !== undefined) return { variable: null, file: job.file };
  return { variable: job.variable ?? DEFAULT_API_KEY_ENV, file: null };
}

export interface KeyReadOptions {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** No key is needed (a dry run, the simulator): a missing one is no problem, a malformed one still is. */
  optional: boolean;
}

/** The key from its source, trimmed and checked, or the problem naming the variable or file (never the key). */
export function readKeyFrom(source: KeySource, options: KeyReadOptions): { key: string; problem: string | null } {
  if (source.variable !== null) {
    const raw = options.env[source.variable];
    const key = readApiKey(raw, source.variable, `set ${source.variable} to the key alone`);
    if (!key.ok) return { key: '', problem: key.problem };
    if (key.key || options.optional) return { key: key.key, problem: null };
    return {
      key: '',
      problem: raw
        ? `the environment variable ${source.variable} holds only whitespace: set it to the API key`
        : `no API key: set the environment variable ${source.variable}`,
    };
  }
  const file = source.file;
  const text = readKeyFile(path.resolve(options.cwd, file));
  if (!text.ok) return { key: '', problem: options.optional ? null : `cannot read the API key file ${file}: ${text.problem}` };
  const key = readApiKey(text.text, `the file ${file}`, `leave only the key in ${file}`);
  if (!key.ok) return { key: '', problem: key.problem };
  if (key.key || options.optional) return { key: key.key, problem: null };
  return { key: '', problem: `the API key file ${file} is empty${text.text ? ' (only whitespace)' : ''}: write the key in it` };
}

/**
 * The key as sent in `Authorization: Bearer <key>`. Whitespace around it is dropped (a BOM too):
 * a key read with `$(cat key.txt)` from a file saved with CRLF ends in "\r", and a key file
 * usually ends in a newline. Anything else that cannot go in an HTTP header (a control character
 * inside, a character beyond ASCII) is refused naming where the key came from and the position,
 * never the key itself.
 */
export function readApiKey(
  raw: string | undefined,
  where: string,
  fix: string,
): { ok: true; key: string } | { ok: false; problem: string } {
  const key = (raw ?? '').trim();
  const bad = firstUnsendableChar(key);
  if (bad) {
    return {
      ok: false,
      problem: `the API key in ${where} has a character that cannot be sent in an HTTP header (${bad.codePoint} at position ${bad.position} of ${key.length}); ${fix}`,
    };
  }
  return { ok: true, key };
}

/** Only a regular file is read (a named pipe would block the start forever), and only a small one. */
function readKeyFile(file: string): { ok: true; text: string } | { ok: false; problem: string } {
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return { ok: false, problem: stat.isDirectory() ? 'it is a folder' : 'it is not a regular file' };
    if (stat.size > MAX_KEY_FILE_BYTES)
      return { ok: false, problem: `it holds ${stat.size} bytes, more than a key (at most ${MAX_KEY_FILE_BYTES})` };
    return { ok: true, text: readFileSync(file, 'utf8') };
  } catch (error) {
    return { ok: false, problem: isFsError(error) ? fsMeaning(error) : String(error) };
  }
}
