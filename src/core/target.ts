/**
 * The URL and the subprotocols: checked at construction (and, with the `providers` feature, for
 * every provider result), so that a value that would fail every attempt is a TypeError or
 * RangeError naming the option, never a socket retrying forever. A URL is shown redacted.
 */
import { redactUrl } from '../redact.js';
import { assertThat, describeValue, isToken, rangeError } from '../validation.js';
import type { ProtocolsProvider } from './options.js';

/**
 * `value` as the URL of an attempt: a string or `URL`, absolute, with a WebSocket (or HTTP) scheme
 * and no fragment. Returns it as a string.
 * @throws TypeError / RangeError naming `name`, with the URL redacted.
 */
export function checkUrl(name: string, value: unknown): string {
  assertThat(
    typeof value === 'string' || value instanceof URL,
    name,
    process.env.NODE_ENV !== 'production' ? 'a string, a URL or a function' : '',
    value,
  );
  const text = String(value);
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {}
  if (!url || !/^(wss?|https?):$/.test(url.protocol) || url.hash) {
    throw rangeError(name, process.env.NODE_ENV !== 'production' ? badUrlText(name, text, url) : '');
  }
  return text;
}

/** The development message of a URL {@link checkUrl} refuses (redacted). */
function badUrlText(name: string, text: string, url: URL | undefined): string {
  // "#hash" (the URL API's name for it) rather than "fragment", so that no word of the message can
  // be mistaken for a leaked part of the URL, whose fragment is shown as `#***`.
  const wanted = !url
    ? 'be an absolute ws:, wss:, http: or https: URL'
    : !/^(wss?|https?):$/.test(url.protocol)
      ? 'use ws:, wss:, http: or https:'
      : 'have no #hash (a WebSocket URL cannot carry one)';
  return `Expected \`${name}\` to ${wanted}, got ${describeValue(redactUrl(text))}`;
}

/**
 * The `url` argument and the `protocols` option of a socket made with `new BaseSocket(url, options)`
 * (or `SharedSocket`), checked: a URL (a provider is called later, per attempt, and its result
 * checked then), and the subprotocols copied. Returns the subprotocols as the socket keeps them.
 * @throws TypeError / RangeError naming `url` or `protocols`.
 */
export function checkTarget(url: unknown, protocols: unknown): ProtocolsProvider | undefined {
  if (typeof url !== 'function') checkUrl('url', url);
  return typeof protocols === 'function' ? (protocols as ProtocolsProvider) : checkProtocols('protocols', protocols);
}

/**
 * `value` as subprotocols: `undefined`, one name, or an array of distinct names, each an HTTP token
 * (RFC 6455 §4.1). An array is copied (changing the caller's afterwards changes nothing). A bad
 * name is shown by its index only (it may be a credential sent as a subprotocol).
 * @throws TypeError / RangeError naming `name`.
 */
export function checkProtocols(name: string, value: unknown): string | string[] | undefined {
  if (value === undefined) return undefined;
  const list = typeof value === 'string' ? [value] : (value as string[]);
  assertThat(
    Array.isArray(list) && list.every((p) => typeof p === 'string'),
    name,
    process.env.NODE_ENV !== 'production' ? 'a string or an array of strings' : '',
    value,
  );
  const bad = list.findIndex((p, i) => !isToken(p) || list.indexOf(p) !== i);
  if (bad >= 0) {
    throw rangeError(
      name,
      process.env.NODE_ENV !== 'production'
        ? `Expected \`${name}\` to name distinct subprotocols, each an HTTP token (RFC 6455 §4.1), got a bad or repeated one at index ${bad}`
        : '',
    );
  }
  return typeof value === 'string' ? value : [...list];
}
