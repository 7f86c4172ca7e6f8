/** `work()`, a synchronous throw as a rejection (as `.then(work)` gives it): work started now, not a turn of the queue later. */
export function startNow<T>(work: () => Promise<T>): Promise<T> {
  try {
    return work();
  } catch (error) {
    return Promise.reject(error);
  }
}
