/**
 * Where a message goes, as the bindings' hand-over sees it: the messages still queued on a socket
 * that a component left for another URL follow it only when the new URL names the same
 * destination, so that a fresh token in the query string loses nothing while a message meant for
 * one server, path or room never reaches another.
 *
 * A destination is the URL without what says *who* is connecting (the credentials): scheme, host,
 * port, path and every query parameter but those below; the userinfo (`user:pass@`) and the
 * fragment (never sent) do not count, nor does the order of the parameters. A credential
 * parameter is one whose name, in any case and without `-` and `_`, is `token` or ends in it
 * (`access_token`, `id-token`, `authToken`), or is `jwt`, `auth`, `authorization`, `bearer`,
 * `key`, `apikey`, `password`, `secret`, `signature`, `sig`, `ticket`, `expires`, `credential`
 * or `credentials`, or begins with `x-amz-` (an AWS pre-signed URL). Any other parameter
 * (`room`, `channel`, `v`) is part of the destination: when it changes, the queued messages are
 * dropped and reported (`onDrop`) rather than sent somewhere they were not meant for.
 *
 * The destination carries no credential, so a binding can keep it without keeping a secret.
 */

/**
 * A credential parameter's name, in lower case without `-` and `_` (see the file's header): one
 * regular expression, smaller in the bindings' bundle than a list.
 */
const CREDENTIAL =
  /^(?:.*token|jwt|auth(?:orization)?|bearer|(?:api)?key|password|secret|sig(?:nature)?|ticket|expires|credentials?|xamz.*)$/;

/** Whether a query parameter named `name` carries a credential (see the file's header). */
export const isCredential = (name: string): boolean => CREDENTIAL.test(name.toLowerCase().replace(/[-_]/g, ''));

/**
 * The destination of `url`: the URL without its userinfo, fragment and credential parameters,
 * the other parameters sorted by name, normalised as `URL` does. A string that does not parse is
 * its own destination.
 */
export function destinationOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const query = parsed.searchParams;
  for (const name of [...query.keys()]) if (isCredential(name)) query.delete(name);
  // The order of the parameters says nothing about where (a name's values keep theirs).
  query.sort();
  parsed.username = parsed.password = parsed.hash = '';
  return parsed.href;
}
