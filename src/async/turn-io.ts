let thisTurn: Promise<void> | null = null;

/**
 * Resolves after the I/O callbacks of the event loop's current turn (at setImmediate), with one
 * promise shared by everyone who asks in the same turn. Work that awaits it runs after every
 * response that arrived in the same poll of the sockets has been handled, so a burst of answers
 * sends all its next requests before any of them is written down.
 */
export function afterTurnIo(): Promise<void> {
  thisTurn ??= new Promise((resolve) => {
    setImmediate(() => {
      thisTurn = null;
      resolve();
    });
  });
  return thisTurn;
}
