/**
 * What the `upgradeRejection()` feature makes of a refused upgrade, through its `lost` hook on a
 * stand-in socket: the error it reports (with the status and the wait in development builds, the
 * code alone in production ones), the wait, and the stop after a second 401/403 in a row.
 */
import { describe, expect, it } from 'vitest';
import type { Host } from '../../../src/core/feature.js';
import type { ResilientSocketError } from '../../../src/errors.js';
import { upgradeRejection } from '../../../src/features/upgrade-rejection/upgrade-rejection.js';
import { inMode } from '../../helpers/mode.js';

/** What the hook reads and writes of a loss. */
interface Loss {
  attempt: number;
  rejection?: { status: number; retryAfter?: unknown };
  error?: ResilientSocketError;
  stop?: ResilientSocketError;
  minimumDelay: number;
  immediate: boolean;
}

/** The feature's `lost` hook on a socket of its own (one data slot, a clock at 0). */
function refusals(options?: { maxRetryAfter?: number }) {
  const feature = upgradeRejection(options);
  const m = {
    data_: undefined as unknown[] | undefined,
    config_: { clock: { now: () => 0 }, features: [feature] },
  };
  return (attempt: number, status: number, retryAfter?: string): Loss => {
    const loss: Loss = { attempt, rejection: { status, retryAfter }, minimumDelay: 0, immediate: false };
    feature.lost?.(m as unknown as Host, 0, loss as never);
    return loss;
  };
}

describe('upgradeRejection(): a refused upgrade', () => {
  it('429/503 with Retry-After: ERR_RS_UPGRADE_REJECTED with the status and the wait, capped', () => {
    const refuse = refusals({ maxRetryAfter: 1_000 });
    const capped = refuse(1, 503, '5');
    expect(capped.minimumDelay).toBe(1_000);
    expect(capped.error).toMatchObject({ code: 'ERR_RS_UPGRADE_REJECTED', status: 503, retryAfter: 5_000 });
    expect(capped.error?.message).toBe(
      inMode(
        'The server refused the WebSocket upgrade with HTTP 503; its Retry-After asks for 5000 ms, waiting 1000 ms at most (`maxRetryAfter`)',
        'ERR_RS_UPGRADE_REJECTED',
      ),
    );
    const asked = refuse(2, 429, '0');
    expect(asked.error?.message).toBe(
      inMode(
        'The server refused the WebSocket upgrade with HTTP 429; its Retry-After asks for 0 ms',
        'ERR_RS_UPGRADE_REJECTED',
      ),
    );
    const other = refuse(3, 500, '5');
    expect(other.minimumDelay).toBe(0);
    expect(other.error?.message).toBe(
      inMode('The server refused the WebSocket upgrade with HTTP 500', 'ERR_RS_UPGRADE_REJECTED'),
    );
  });

  it('401 twice in a row: ERR_RS_UNAUTHORIZED stops, the rejection as its cause', () => {
    const refuse = refusals();
    const first = refuse(1, 401);
    expect([first.immediate, first.stop]).toEqual([true, undefined]);
    const second = refuse(2, 401);
    expect(second.stop).toMatchObject({ code: 'ERR_RS_UNAUTHORIZED', status: 401, cause: second.error });
    expect(second.stop?.message).toBe(
      inMode('The server refused the upgrade with HTTP 401 twice in a row; not reconnecting', 'ERR_RS_UNAUTHORIZED'),
    );
  });
});
