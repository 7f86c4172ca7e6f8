/**
 * Flag value checks that name the flag and what it accepts, e.g.
 * "--concurrency must be a positive integer: current value is 0".
 */
export function positiveInteger(flag: string) {
  return (value: unknown): number | undefined => {
    if (value === undefined) return undefined;
    const number = Number(value);
    if (!Number.isInteger(number) || number <= 0) {
      throw new Error(`--${flag} must be a positive integer: current value is ${JSON.stringify(value)}`);
    }
    return number;
  };
}

export function nonNegativeInteger(flag: string) {
  return (value: unknown): number | undefined => {
    if (value === undefined) return undefined;
    const number = Number(value);
    if (!Number.isInteger(number) || number < 0) {
      throw new Error(`--${flag} must be a non-negative integer: current value is ${JSON.stringify(value)}`);
    }
    return number;
  };
}
