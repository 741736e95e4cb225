/** The status line of the interactive terminal, as a pure function of what the socket reports. */
import type { ResilientSocket } from '../resilient-socket/resilient-socket.js';

/** What the status line shows. */
export interface StatusInput {
  readonly state: string;
  /**
   * `socket.attempt`: the attempt under way while `connecting`, the one that follows the wait
   * while `reconnecting`; the number the `connecting` and `reconnecting` events carry, so the
   * status line and the event lines agree.
   */
  readonly attempt: number;
  readonly bufferedCount: number;
  /** Milliseconds until the next attempt, when one is scheduled. */
  readonly retryIn: number | undefined;
}

/** `[reconnecting · attempt 3 in 1.2 s · 2 buffered] ` (the prompt the user types after). */
export function formatStatus({ state, attempt, bufferedCount, retryIn }: StatusInput): string {
  const parts = [state];
  if (retryIn !== undefined) parts.push(`attempt ${attempt} in ${seconds(retryIn)}`);
  else if (state === 'connecting') parts.push(`attempt ${attempt}`);
  if (bufferedCount > 0) parts.push(`${bufferedCount} buffered`);
  return `[${parts.join(' · ')}] `;
}

/** The status line of a live socket (`Date.now()`: the CLI runs on the system clock). */
export function statusLine(socket: ResilientSocket, now = Date.now()): string {
  const { nextRetryAt } = socket.stats;
  return formatStatus({
    state: socket.state,
    attempt: socket.attempt,
    bufferedCount: socket.bufferedCount,
    retryIn: nextRetryAt === undefined ? undefined : Math.max(0, nextRetryAt - now),
  });
}

function seconds(ms: number): string {
  const rounded = Math.round(ms);
  return rounded < 1_000 ? `${rounded} ms` : `${(ms / 1_000).toFixed(1)} s`;
}
