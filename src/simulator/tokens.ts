import type { SimMessage } from './reply.js';

/** The prompt's tokens as the simulator counts them: about 4 characters a token, plus 4 a message. */
export function promptTokens(messages: readonly SimMessage[]): number {
  let chars = 0;
  for (const message of messages) chars += typeof message.content === 'string' ? message.content.length : 0;
  return Math.ceil(chars / 4) + 4 * messages.length;
}
