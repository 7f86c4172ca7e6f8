/** The output directory holds an earlier run and the user said neither --resume nor --force. */
export class OutDirInUseError extends Error {
  override name = 'OutDirInUseError';
}
