/**
 * Keeping secrets that live in URLs out of what the package prints and reports. Tokens travel in
 * a URL's userinfo (`wss://user:token@host`), its query (`?token=…`) and sometimes its fragment;
 * every error message, event payload and CLI line shows a URL only in redacted form:
 * `wss://***@host/feed?token=***&room=***`. The path and the host are kept (they say where, not
 * who). Whoever passed the URL can still read it whole (`socket.url`).
 */

/** What a redacted part is replaced with. */
export const REDACTED = '***';

/**
 * `url` with its userinfo, query values and fragment replaced by `***`. Works on any string,
 * parsable as a URL or not (an invalid URL in an error message must not leak either): the
 * fragment is everything after the first `#`, the query what follows the first `?` before it; the
 * authority is what follows `scheme://` up to the first `/`, and without `scheme://` everything up
 * to the last `@` before the query is taken for userinfo.
 */
export function redactUrl(url: string): string {
  const hash = url.indexOf('#');
  let rest = hash < 0 ? url : url.slice(0, hash);
  const fragment = hash < 0 ? '' : hash + 1 < url.length ? `#${REDACTED}` : '#';
  const question = rest.indexOf('?');
  let query = '';
  if (question >= 0) {
    // Each item's value (or a bare item: it may be the token itself); empty ones stay as they are.
    query = `?${rest
      .slice(question + 1)
      .split('&')
      .map((item) => (item.includes('=') ? item.replace(/=[\s\S]+/, `=${REDACTED}`) : item && REDACTED))
      .join('&')}`;
    rest = rest.slice(0, question);
  }
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(rest)?.[0] ?? '';
  const authority = scheme ? (rest.slice(scheme.length).split('/')[0] ?? '') : rest;
  const at = authority.lastIndexOf('@');
  if (at >= 0) rest = `${scheme}${REDACTED}${rest.slice(scheme.length + at)}`;
  return rest + query + fragment;
}

/**
 * Every URL-shaped thing in `text` redacted as {@link redactUrl} does:
 * - a URL with a scheme: `scheme://`, then userinfo up to an `@` before the first `/`, `?` or `#`
 *   (a password may hold spaces), then everything up to whitespace, a quote, a backquote or an
 *   angle bracket;
 * - without a scheme, a word that starts with `user:password@` (`alice:pw@host/?token=…`), or with
 *   `name@` and a dotted host (an e-mail address, not for logs either); never an `@` after a `/`
 *   (`node_modules/@scope`).
 * Trailing punctuation is left out of each. A text with neither (`user:pass`, `a?b=c`) stays as it is.
 */
export function redactUrls(text: string): string {
  const urls =
    /\b[a-z][a-z0-9+.-]*:\/\/(?:[^/?#@"'`<>\n]*@)?[^\s"'`<>]*|(?<![^\s"'`<>(])(?:[^\s"'`<>/@(:]+:[^\s"'`<>/@]*@[^\s"'`<>/@]+|[^\s"'`<>/@(]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+)[^\s"'`<>]*/gi;
  return text.replace(urls, (url) => {
    const tail = /[.,;:!?)\]}]*$/.exec(url)?.[0] ?? '';
    return redactUrl(url.slice(0, url.length - tail.length)) + tail;
  });
}
