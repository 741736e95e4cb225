/** Counting the worker's live timers, for "nothing left running" checks. */
import { sleep } from './wait.js';

/** Live (ref'd) timers of this worker. Unref'd timers (e.g. http.Server's own interval) are not listed. */
export function activeTimeouts(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
}

/**
 * The timer count before the code under test runs. Vitest's runner sends task updates through a
 * 100 ms throttle whose pending `setTimeout` is live at the start of a test; wait it out so that it
 * does not count in the baseline (it would be gone at the end and make every comparison off by one).
 */
export async function timerBaseline(): Promise<number> {
  await sleep(110);
  await sleep(0);
  return activeTimeouts();
}
