/**
 * `providers()`: the URL, and the subprotocols, may be functions (sync or async) called before
 * every attempt, e.g. to put a fresh token in the query string. Their results are checked as the
 * options are; a provider that throws, rejects or returns something invalid fails that attempt
 * (`ERR_RS_PROVIDER_FAILED`), which is retried with backoff.
 */
import type { Feature, Target } from '../../core/feature.js';
import { checkUrl } from '../../core/target.js';
import { checkSubprotocols } from './protocols.js';

async function resolve(url: unknown, protocols: unknown): Promise<Target> {
  const rawUrl = typeof url === 'function' ? await (url as () => unknown)() : url;
  const rawProtocols = typeof protocols === 'function' ? await (protocols as () => unknown)() : protocols;
  return { url: checkUrl('url()', rawUrl), protocols: checkSubprotocols('protocols()', rawProtocols) };
}

const PROVIDERS: Feature = {
  name: 'providers',
  rank: 10,
  target: (_host, _me, url, protocols) =>
    typeof url === 'function' || typeof protocols === 'function' ? resolve(url, protocols) : undefined,
};

/**
 * The `providers` feature: `url` and `protocols` may be functions, sync or async, called before
 * every attempt. Without it, a function there is a TypeError naming this factory.
 * @example
 * ```ts
 * new BaseSocket(async () => `wss://api.example.test/feed?token=${await auth.freshToken()}`, {
 *   features: [providers()],
 * })
 * ```
 */
export function providers(): Feature {
  return PROVIDERS;
}
