/**
 * `destinationOf`: where the hook's queued messages may follow a component that moves to another
 * URL. Credentials (userinfo, and query parameters named as credentials) and the fragment do not
 * count, nor does the order of the parameters; the scheme, host, port, path and every other
 * parameter do. The destination itself holds no credential.
 */
import { describe, expect, it } from 'vitest';
import { destinationOf, isCredential } from '../../src/bindings/destination.js';

const same = (a: string, b: string) => expect(destinationOf(a)).toBe(destinationOf(b));
const differ = (a: string, b: string) => expect(destinationOf(a)).not.toBe(destinationOf(b));

describe('destinationOf: what says who does not count', () => {
  it('a new token in the query', () => {
    same('wss://api.example.test/feed?token=a', 'wss://api.example.test/feed?token=b');
    same('wss://api.example.test/feed?room=1&access_token=a', 'wss://api.example.test/feed?room=1&access_token=b');
    same('wss://api.example.test/feed?id-token=a&jwt=x', 'wss://api.example.test/feed?id-token=b&jwt=y');
    same('wss://api.example.test/feed?authToken=a', 'wss://api.example.test/feed');
  });

  it('the parameters of a pre-signed or signed URL', () => {
    same(
      'wss://a.example.test/s?X-Amz-Credential=k1&X-Amz-Date=1&X-Amz-Expires=60&X-Amz-Signature=s1',
      'wss://a.example.test/s?X-Amz-Credential=k2&X-Amz-Date=2&X-Amz-Expires=60&X-Amz-Signature=s2',
    );
    same('wss://a.example.test/s?expires=1&sig=a', 'wss://a.example.test/s?expires=2&sig=b');
    same('wss://a.example.test/s?key=a&apiKey=b&api_key=c', 'wss://a.example.test/s');
  });

  it('the userinfo and the fragment', () => {
    same('wss://alice:secret1@api.example.test/feed', 'wss://alice:secret2@api.example.test/feed');
    same('wss://api.example.test/feed#one', 'wss://api.example.test/feed#two');
  });

  it('the order of the parameters, and what URL normalises', () => {
    same('wss://api.example.test/feed?a=1&b=2', 'wss://api.example.test/feed?b=2&a=1');
    same('wss://API.example.test:443/feed', 'wss://api.example.test/feed');
    same('ws://api.example.test:80/a/../feed', 'ws://api.example.test/feed');
  });
});

describe('destinationOf: what says where counts', () => {
  it('the scheme, the host, the port and the path', () => {
    differ('wss://api.example.test/feed', 'ws://api.example.test/feed');
    differ('wss://api.example.test/feed', 'wss://other.example.test/feed');
    differ('wss://api.example.test:8443/feed', 'wss://api.example.test/feed');
    differ('wss://api.example.test/feed', 'wss://api.example.test/chat');
  });

  it('every other parameter: another room, another version, one more or one less', () => {
    differ('wss://api.example.test/feed?room=1&token=a', 'wss://api.example.test/feed?room=2&token=a');
    differ('wss://api.example.test/feed?v=1', 'wss://api.example.test/feed?v=2');
    differ('wss://api.example.test/feed?room=1', 'wss://api.example.test/feed');
    differ('wss://api.example.test/feed?room=1&room=2', 'wss://api.example.test/feed?room=2&room=1');
    // A parameter whose name only contains a credential word is not one.
    differ('wss://api.example.test/feed?keyword=a', 'wss://api.example.test/feed?keyword=b');
    differ('wss://api.example.test/feed?author=a', 'wss://api.example.test/feed?author=b');
  });

  it('a string that is not a URL is its own destination', () => {
    same('not a url', 'not a url');
    differ('not a url?token=a', 'not a url?token=b');
  });
});

describe('destinationOf: no secret kept', () => {
  it('holds no credential, whatever the URL carries', () => {
    const destination = destinationOf('wss://bob:hunter2@api.example.test/feed?room=1&access_token=s3cr3t#frag');
    expect(destination).toBe('wss://api.example.test/feed?room=1');
    expect(destination).not.toMatch(/hunter2|s3cr3t|bob|frag/);
  });
});

describe('isCredential', () => {
  it('knows the usual names, in any case, with or without - and _', () => {
    for (const name of ['token', 'TOKEN', 'access_token', 'id-token', 'authToken', 'jwt', 'auth', 'Authorization']) {
      expect(isCredential(name)).toBe(true);
    }
    for (const name of ['bearer', 'key', 'apikey', 'api_key', 'password', 'secret', 'signature', 'sig', 'ticket']) {
      expect(isCredential(name)).toBe(true);
    }
    for (const name of ['expires', 'credential', 'credentials', 'X-Amz-Security-Token', 'x-amz-date']) {
      expect(isCredential(name)).toBe(true);
    }
  });

  it('leaves every other name to the destination', () => {
    for (const name of ['room', 'channel', 'v', 'id', 'user', 'keyword', 'author', 'session', 'signal', 'tokens']) {
      expect(isCredential(name)).toBe(false);
    }
  });
});
