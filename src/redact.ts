/**
 * Keeping secrets that live in URLs out of what the package prints and reports. Tokens travel in
 * a URL's userinfo (`wss://user:token@host`), its query (`?token=…`) and sometimes its fragment;
 * every error message, event payload and CLI line shows a URL only in redacted form:
 * `wss://***@host/feed?token=***&room=***`. The path and the host are kept (they say where, not
 * who). Whoever passed the URL can still read it whole (`socket.url`).
 */

/** What a redacted part is replaced with. */
export const REDACTED = '***';

/** A URL inside free text: a scheme, `://`, then everything up to whitespace or a quote. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>]+/gi;

/**
 * `url` with its userinfo, query values and fragment replaced by `***`. Works on any string,
 * parsable as a URL or not (an invalid URL in an error message must not leak either): the
 * authority is what follows `://` up to the first `/`, `?` or `#`; without `://`, everything up to
 * an `@` before the query is taken for userinfo.
 */
export function redactUrl(url: string): string {
  let rest = url;
  let head = '';
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(rest);
  if (scheme) {
    head = scheme[0];
    rest = rest.slice(head.length);
    const end = rest.search(/[/?#]/);
    const authority = end === -1 ? rest : rest.slice(0, end);
    const at = authority.lastIndexOf('@');
    if (at !== -1) {
      head += `${REDACTED}@${authority.slice(at + 1)}`;
      rest = rest.slice(authority.length);
    }
  } else {
    // No `scheme://` (`user:pw@host`, `//user:pw@host`, `ftp:/user:pw@host`): an `@` before the
    // query may still end a password, so everything up to it goes.
    const end = rest.search(/[?#]/);
    const at = (end === -1 ? rest : rest.slice(0, end)).lastIndexOf('@');
    if (at !== -1) {
      head = REDACTED;
      rest = rest.slice(at);
    }
  }
  const hash = rest.indexOf('#');
  let fragment = '';
  if (hash !== -1) {
    fragment = hash + 1 < rest.length ? `#${REDACTED}` : '#';
    rest = rest.slice(0, hash);
  }
  const question = rest.indexOf('?');
  if (question !== -1) {
    const query = rest.slice(question + 1);
    rest = `${rest.slice(0, question + 1)}${query === '' ? '' : redactQuery(query)}`;
  }
  return head + rest + fragment;
}

/** `a=1&b&c=` → `a=***&***&c=`: keys stay, values go; a lone item may itself be the token. */
function redactQuery(query: string): string {
  return query
    .split('&')
    .map((item) => {
      if (item === '') return item;
      const equals = item.indexOf('=');
      if (equals === -1) return REDACTED;
      return equals + 1 < item.length ? `${item.slice(0, equals + 1)}${REDACTED}` : item;
    })
    .join('&');
}

/** Punctuation that ends a sentence or closes a bracket around a URL, rather than belonging to it. */
const TRAILING = /[.,;:!?)\]}]+$/;

/** `text` with every URL in it redacted (see {@link redactUrl}). */
export function redactUrls(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => {
    const tail = TRAILING.exec(url)?.[0] ?? '';
    return redactUrl(url.slice(0, url.length - tail.length)) + tail;
  });
}
