import { ownField } from './own-field.js';
import { fillTemplate } from './template.js';

export interface ChatMessage {
  role: string;
  content: string;
}

export interface MessageOptions {
  system: string | null;
  template: string | null;
}

export type MessagesResult = { ok: true; messages: ChatMessage[] } | { ok: false; problem: string };

const ROLES = new Set(['system', 'developer', 'user', 'assistant']);

/**
 * Turns a row into the `messages` array. Precedence: a template (when given) fills from the
 * row's fields; else the row's own `messages` (or `body.messages` of a Batch API line) are used
 * as given; else `prompt` becomes one user message.
 */
export function rowToMessages(fields: Readonly<Record<string, unknown>>, options: MessageOptions): MessagesResult {
  const built = buildUserMessages(fields, options.template);
  if (!built.ok) return built;
  const messages = built.messages;
  // An empty system message is none: `--system ''` takes a job file's away.
  if (options.system && messages[0]?.role !== 'system') {
    messages.unshift({ role: 'system', content: options.system });
  }
  return { ok: true, messages };
}

function buildUserMessages(fields: Readonly<Record<string, unknown>>, template: string | null): MessagesResult {
  if (template !== null) {
    const filled = fillTemplate(template, fields);
    if (!filled.ok) return filled;
    if (filled.text.trim() === '') return { ok: false, problem: 'the filled template is empty' };
    return { ok: true, messages: [{ role: 'user', content: filled.text }] };
  }
  const given = ownField(fields, 'messages') ?? batchBodyMessages(fields);
  if (given !== undefined) return checkMessages(given);
  if (Object.hasOwn(fields, 'prompt')) {
    const prompt = fields.prompt;
    if (typeof prompt !== 'string') return { ok: false, problem: `"prompt" must be a string, got ${typeName(prompt)}` };
    if (prompt.trim() === '') return { ok: false, problem: 'empty prompt' };
    return { ok: true, messages: [{ role: 'user', content: prompt }] };
  }
  return { ok: false, problem: 'nothing to send: the row has no "messages" or "prompt", and no --template was given' };
}

function batchBodyMessages(fields: Readonly<Record<string, unknown>>): unknown {
  const body = ownField(fields, 'body');
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return ownField(body, 'messages');
  return undefined;
}

function checkMessages(value: unknown): MessagesResult {
  if (!Array.isArray(value)) return { ok: false, problem: `"messages" must be a list, got ${typeName(value)}` };
  if (value.length === 0) return { ok: false, problem: '"messages" is empty' };
  const messages: ChatMessage[] = [];
  for (const [index, message] of value.entries()) {
    const where = `messages[${index}]`;
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return { ok: false, problem: `${where} must be an object with role and content` };
    }
    const role = ownField(message, 'role');
    const content = ownField(message, 'content');
    if (typeof role !== 'string' || !ROLES.has(role)) {
      return { ok: false, problem: `${where}.role must be one of ${[...ROLES].join(', ')}, got ${describeRole(role)}` };
    }
    if (typeof content !== 'string') {
      return { ok: false, problem: `${where}.content must be a string (text only), got ${typeName(content)}` };
    }
    if (content.trim() === '') return { ok: false, problem: `${where}.content is empty` };
    messages.push({ role, content });
  }
  return { ok: true, messages };
}

/** Never the whole value: a role may be a long string or a deeply nested list (JSON.stringify of which overflowed the stack). */
function describeRole(role: unknown): string {
  if (role === undefined) return 'none';
  if (typeof role !== 'string') return typeName(role);
  return JSON.stringify(role.length > 40 ? `${role.slice(0, 40)}...` : role);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
