/** Seconds before the next attempt of a failed delivery (a tracker push, a pull request decoration): 5 s doubling, at most an hour. */
export function retryBackoffSeconds(attempts: number): number {
  return Math.min(5 * 2 ** Math.max(0, attempts - 1), 3600);
}
