import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactUrl, redactUrls } from '../src/redact.js';

describe('redactUrl', () => {
  it.each<[string, string, string]>([
    ['userinfo with a password', 'wss://user:S3CR3T@example.test/feed', 'wss://***@example.test/feed'],
    ['userinfo without a password', 'wss://S3CR3T@example.test/feed', 'wss://***@example.test/feed'],
    ['an empty password', 'wss://user:@example.test/', 'wss://***@example.test/'],
    ['an @ in the password', 'wss://user:p@ss@S3CR3T@example.test/feed', 'wss://***@example.test/feed'],
    ['a percent-encoded @', 'wss://user:p%40S3CR3T@example.test/', 'wss://***@example.test/'],
    ['userinfo with no path after it', 'wss://user:S3CR3T@example.test', 'wss://***@example.test'],
    ['userinfo then a query', 'wss://u:S3CR3T@example.test?token=T0K3N', 'wss://***@example.test?token=***'],
    ['an uppercase scheme', 'WSS://U:S3CR3T@EXAMPLE.TEST/', 'WSS://***@EXAMPLE.TEST/'],
    ['a port', 'ws://u:S3CR3T@127.0.0.1:8080/x', 'ws://***@127.0.0.1:8080/x'],
  ])('%s', (_label, url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('keeps query keys and replaces every value, however many', () => {
    expect(redactUrl('wss://h/p?token=T0K3N&room=42&user=alice&sig=abc%3D%3D')).toBe(
      'wss://h/p?token=***&room=***&user=***&sig=***',
    );
  });

  it('keeps empty values and empty items as they are', () => {
    expect(redactUrl('wss://h/p?a=&b=&c=1')).toBe('wss://h/p?a=&b=&c=***');
    expect(redactUrl('wss://h/p?a=1&&b=2&')).toBe('wss://h/p?a=***&&b=***&');
    expect(redactUrl('wss://h/p?')).toBe('wss://h/p?');
  });

  it('replaces a bare item (no "="), which may be the token itself', () => {
    expect(redactUrl('wss://h/p?T0K3N')).toBe('wss://h/p?***');
    expect(redactUrl('wss://h/p?debug&token=T0K3N')).toBe('wss://h/p?***&token=***');
  });

  it('replaces a value with "=" in it whole', () => {
    expect(redactUrl('wss://h/?sig=a=b=c')).toBe('wss://h/?sig=***');
  });

  it('replaces a fragment, and keeps an empty one', () => {
    expect(redactUrl('wss://h/p#access_token=T0K3N')).toBe('wss://h/p#***');
    expect(redactUrl('wss://h/p?x=1#frag')).toBe('wss://h/p?x=***#***');
    expect(redactUrl('wss://h/p#')).toBe('wss://h/p#');
    // a "?" after the "#" belongs to the fragment
    expect(redactUrl('wss://h/p#a?token=T0K3N')).toBe('wss://h/p#***');
  });

  it('keeps IPv6 hosts (their colons are not userinfo)', () => {
    expect(redactUrl('wss://[::1]:8080/p?x=1')).toBe('wss://[::1]:8080/p?x=***');
    expect(redactUrl('wss://[2001:db8::1]/feed')).toBe('wss://[2001:db8::1]/feed');
    expect(redactUrl('wss://u:S3CR3T@[::1]:8080/p')).toBe('wss://***@[::1]:8080/p');
  });

  it('leaves a URL with nothing secret alone', () => {
    for (const url of ['wss://example.test/feed', 'ws://localhost:8080', 'https://h/a/b/c', 'wss://h/p@q']) {
      expect(redactUrl(url)).toBe(url);
    }
  });

  it('without a scheme, still replaces query values and the fragment', () => {
    expect(redactUrl('example.test/feed?token=T0K3N')).toBe('example.test/feed?token=***');
    expect(redactUrl('/relative/path?token=T0K3N#frag')).toBe('/relative/path?token=***#***');
    expect(redactUrl('not a url at all')).toBe('not a url at all');
    expect(redactUrl('')).toBe('');
  });

  it('redacts userinfo without `scheme://` too (an @ before the query may end a password)', () => {
    expect(redactUrl('user:S3CR3T@host/x?token=T0K3N')).toBe('***@host/x?token=***');
    expect(redactUrl('//user:S3CR3T@host')).toBe('***@host');
    expect(redactUrl('ftp:/user:S3CR3T@host/p')).toBe('***@host/p');
    expect(redactUrl('host/path?mail=a@b')).toBe('host/path?mail=***');
  });

  it('handles what new URL() refuses', () => {
    expect(redactUrl('wss://u:S3CR3T@/?token=T0K3N bad')).toBe('wss://***@/?token=***');
    expect(redactUrl('wss://u:S3CR3T@h:99999/x')).toBe('wss://***@h:99999/x');
  });

  it('is idempotent', () => {
    const url = 'wss://u:S3CR3T@h/p?token=T0K3N&x#frag';
    expect(redactUrl(redactUrl(url))).toBe(redactUrl(url));
  });

  it('uses *** (REDACTED)', () => {
    expect(REDACTED).toBe('***');
  });

  it('keeps scheme, host and path, and leaves no userinfo, query value or fragment (property)', () => {
    fc.assert(
      fc.property(
        fc.webUrl({
          validSchemes: ['ws', 'wss', 'http', 'https'],
          authoritySettings: { withUserInfo: true, withPort: true, withIPv6: true },
          withQueryParameters: true,
          withFragments: true,
        }),
        (url) => {
          const original = new URL(url);
          const redacted = redactUrl(url);
          const parsed = new URL(redacted);
          expect(parsed.protocol).toBe(original.protocol);
          expect(parsed.host).toBe(original.host);
          expect(parsed.pathname).toBe(original.pathname);
          expect(parsed.password).toBe('');
          expect(['', REDACTED]).toContain(parsed.username);
          if (original.username !== '' || original.password !== '') expect(parsed.username).toBe(REDACTED);
          for (const [, value] of parsed.searchParams) expect(['', REDACTED]).toContain(value);
          expect(['', `#${REDACTED}`]).toContain(parsed.hash);
          expect(redactUrl(redacted)).toBe(redacted);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('redactUrls', () => {
  it('redacts every URL in a text and leaves the rest', () => {
    expect(
      redactUrls('connect ws://a:S3CR3T@h/x?t=T0K3N failed; retrying "wss://h2/y?k=v#f" then http://h3/ok now'),
    ).toBe('connect ws://***@h/x?t=*** failed; retrying "wss://h2/y?k=***#***" then http://h3/ok now');
  });

  it('stops a URL at whitespace, quotes, backticks and angle brackets', () => {
    expect(redactUrls("'wss://h/?a=1' `ws://u:p@h/` <https://h/?b=2>")).toBe(
      "'wss://h/?a=***' `ws://***@h/` <https://h/?b=***>",
    );
  });

  it('handles several URLs on one line, one directly after another', () => {
    expect(redactUrls('wss://u:S3CR3T@a/?x=1 wss://b/?y=2\nws://c/#z')).toBe(
      'wss://***@a/?x=*** wss://b/?y=***\nws://c/#***',
    );
  });

  it('a password with a space in it does not end the URL early', () => {
    expect(redactUrls('provider failed: cannot reach ws://alice:pa ss@host/?token=TOK now')).toBe(
      'provider failed: cannot reach ws://***@host/?token=*** now',
    );
  });

  it('userinfo without a scheme, and e-mail addresses, are redacted too', () => {
    expect(redactUrls('bad url alice:pw@host/?token=TOK.')).toBe('bad url ***@host/?token=***.');
    expect(redactUrls('(alice:p@ss@host)')).toBe('(***@host)');
    expect(redactUrls('mail bob@example.com, thanks')).toBe('mail ***@example.com, thanks');
  });

  it('leaves what only has an @ alone: scoped packages in stack traces, option names', () => {
    const stack = '    at f (/work/main/node_modules/@vitest/runner/dist/index.js:1:2)';
    expect(redactUrls(stack)).toBe(stack);
    expect(redactUrls('Unknown option `["A@!"]`')).toBe('Unknown option `["A@!"]`');
  });

  it('leaves a text without URLs alone', () => {
    const text = 'no url here: user:pass is just text, a?b=c too';
    expect(redactUrls(text)).toBe(text);
  });
});
