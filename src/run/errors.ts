import { NothingSentError } from '../errors.js';
/** The output directory holds an earlier run and the user said neither --resume nor --force. */
export class OutDirInUseError extends NothingSentError {
  override name = 'OutDirInUseError';
}

/** The run could not set itself up (a file system problem before the first request); nothing was sent. */
export class SetupError extends NothingSentError {
  override name = 'SetupError';
}
