/**
 * `upgradeRejection()`: what a refused upgrade (an HTTP status instead of 101, seen through `ws`)
 * means for the retry. 429 and 503 with a `Retry-After` wait at least that long (capped by
 * `maxRetryAfter`); a 401 or 403 is retried at once (a URL provider may bring a fresh token), and
 * a second in a row stops (`ERR_RS_UNAUTHORIZED`: retrying cannot fix credentials). The failure
 * is reported as `ERR_RS_UPGRADE_REJECTED` with the status and the wait.
 *
 * Per socket it keeps one number: the attempt that was last refused with 401/403, so that "twice
 * in a row" means consecutive attempts (any other outcome, a reset or a new run forgets it).
 */
import { type Feature, getData, setData } from '../../core/feature.js';
import { ResilientSocketError } from '../../errors.js';
import { assertKnownKeys, assertNumber, assertOptionsObject, withDefault } from '../../validation.js';
import { intern } from '../intern.js';
import { parseRetryAfter } from './retry-after.js';

/** Options of {@link upgradeRejection}. */
export interface UpgradeRejectionOptions {
  /**
   * The longest a server's `Retry-After` (on a 429 or 503 refusal) may make the socket wait, in
   * ms; a longer one is cut to this (`Infinity`: no cap).
   * @default 300_000 (5 minutes)
   * @example
   * ```ts
   * upgradeRejection({ maxRetryAfter: 60_000 })
   * ```
   */
  maxRetryAfter?: number;
}

/** The default of {@link UpgradeRejectionOptions.maxRetryAfter}. */
export const MAX_RETRY_AFTER = 300_000;

/**
 * The development message of `ERR_RS_UPGRADE_REJECTED`: the status and, when the server asked for
 * a wait it is given (`retryAfter`), that wait and the cap.
 */
function rejectedText(status: number, retryAfter: number | undefined, cap: number): string {
  const head = `The server refused the WebSocket upgrade with HTTP ${status}`;
  if (retryAfter === undefined) return head;
  return retryAfter > cap
    ? `${head}; its Retry-After asks for ${retryAfter} ms, waiting ${cap} ms at most (\`maxRetryAfter\`)`
    : `${head}; its Retry-After asks for ${retryAfter} ms`;
}

/**
 * The `upgradeRejection` feature: refused upgrades are retried the way their status asks (see
 * the module comment). Without it, a refusal is an ordinary failed attempt
 * (`ERR_RS_CONNECTION_FAILED`, its status in the message), retried with backoff.
 * `ResilientSocket`'s `maxRetryAfter` option.
 * @throws TypeError / RangeError naming the option.
 * @example
 * ```ts
 * new BaseSocket(url, { features: [upgradeRejection({ maxRetryAfter: 60_000 })] })
 * ```
 */
export function upgradeRejection(options?: UpgradeRejectionOptions): Feature {
  assertOptionsObject('upgradeRejection options', options);
  assertKnownKeys('', options, ['maxRetryAfter'], 'upgradeRejection()');
  const cap = withDefault(options?.maxRetryAfter, MAX_RETRY_AFTER);
  assertNumber('maxRetryAfter', cap, { min: 0, allowInfinity: true });
  return intern<Feature & { readonly options_: object }>({
    name: 'upgradeRejection',
    rank: 50,
    options_: { cap },
    lost(host, index, loss) {
      const refused = getData(host, index) as number | undefined;
      setData(host, index, undefined);
      const rejection = loss.rejection;
      if (!rejection) return;
      const { status } = rejection;
      const retryAfter = parseRetryAfter(rejection.retryAfter, host.config_.clock.now());
      const asked = retryAfter !== undefined && (status === 429 || status === 503);
      if (asked) loss.minimumDelay = Math.min(retryAfter, cap);
      const error = new ResilientSocketError(
        'ERR_RS_UPGRADE_REJECTED',
        process.env.NODE_ENV !== 'production' ? rejectedText(status, asked ? retryAfter : undefined, cap) : '',
        { status, ...(retryAfter !== undefined ? { retryAfter } : {}) },
      );
      loss.error = error;
      if (status !== 401 && status !== 403) return;
      if (refused !== undefined && refused === loss.attempt - 1) {
        loss.stop = new ResilientSocketError(
          'ERR_RS_UNAUTHORIZED',
          process.env.NODE_ENV !== 'production'
            ? `The server refused the upgrade with HTTP ${status} twice in a row; not reconnecting`
            : '',
          { status, cause: error },
        );
      } else {
        setData(host, index, loss.attempt);
        loss.immediate = true;
      }
    },
  });
}
