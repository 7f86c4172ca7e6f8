export interface SimMessage {
  role: string;
  content: string;
}

/** FNV-1a over a string: fast, deterministic, not cryptographic. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * A deterministic reply derived from the messages, so tests and re-runs can check replies.
 * `choice` (with `n` > 1) makes each choice's reply distinct; choice 0 is the reply of `n` = 1.
 */
export function simulatedReply(messages: ReadonlyArray<SimMessage>, choice = 0, variant = 0): string {
  let lastUser = '';
  let all = '';
  for (const message of messages) {
    all += `${message.role}\u0000${message.content}\u0000`;
    if (message.role === 'user') lastUser = message.content;
  }
  const excerpt = lastUser.length > 60 ? `${lastUser.slice(0, 60)}…` : lastUser;
  if (choice > 0) all += `choice\u0000${choice}`;
  if (variant > 0) all += `variant\u0000${variant}`;
  return `Simulated reply${choice > 0 ? ` ${choice + 1}` : ''} to "${excerpt}" (#${fnv1a(all).toString(16).padStart(8, '0')})`;
}
