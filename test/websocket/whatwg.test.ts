/**
 * The WebSocket argument rules' errors, beyond what the conformance table compares: each names its
 * argument (what a production build's message says), and where the runtime has no `DOMException`
 * (React Native) an Error carries the name instead.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeArgs, domException, webSocketProtocols, webSocketUrl } from '../../src/websocket/whatwg.js';
import { inMode, productionMessage } from '../helpers/mode.js';

afterEach(() => {
  vi.unstubAllGlobals();
});

/** What `fn` throws. */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to throw');
}

/** Asserts a DOMException `name` about `argument`, with `development` as its message in development. */
function expectDomException(fn: () => unknown, name: string, argument: string, development: string): void {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(DOMException);
  expect(error.name).toBe(name);
  expect(error.message).toBe(inMode(development, productionMessage(argument, name)));
}

describe('the errors name their argument', () => {
  const construct = "Failed to construct 'WebSocket': ";

  it('the URL: `url`', () => {
    expectDomException(
      () => webSocketUrl('http://['),
      'SyntaxError',
      'url',
      `${construct}The URL 'http://[' is invalid.`,
    );
    expectDomException(
      () => webSocketUrl('ftp://example.test/'),
      'SyntaxError',
      'url',
      `${construct}The URL's scheme must be either 'http', 'https', 'ws', or 'wss'. 'ftp' is not allowed.`,
    );
    expectDomException(
      () => webSocketUrl('wss://example.test/#secret'),
      'SyntaxError',
      'url',
      `${construct}The URL contains a fragment identifier ('***'). Fragment identifiers are not allowed in WebSocket URLs.`,
    );
  });

  it('a URL shown in a message is redacted; a production message shows none', () => {
    const { message } = thrown(() => webSocketUrl('wss://user:pw@[/?token=abc'));
    expect(message).not.toContain('pw');
    expect(message).not.toContain('abc');
  });

  it('the subprotocols: `protocols`', () => {
    expectDomException(
      () => webSocketProtocols('a b'),
      'SyntaxError',
      'protocols',
      `${construct}The subprotocol 'a b' is invalid.`,
    );
    expectDomException(
      () => webSocketProtocols(['a', 'a']),
      'SyntaxError',
      'protocols',
      `${construct}The subprotocol 'a' is duplicated.`,
    );
  });

  it("close()'s and reconnect()'s code and reason: `code`, `reason`", () => {
    expectDomException(
      () => closeArgs(1001, undefined),
      'InvalidAccessError',
      'code',
      "Failed to execute 'close' on 'WebSocket': The close code must be either 1000, or between 3000 and 4999. 1001 is neither.",
    );
    expectDomException(
      () => closeArgs(4000, 'x'.repeat(124), 'reconnect'),
      'SyntaxError',
      'reason',
      "Failed to execute 'reconnect' on 'ResilientWebSocket': The close reason must not be greater than 123 UTF-8 bytes.",
    );
  });
});

describe('domException', () => {
  it('is a DOMException with the name, the message given, or the argument and the name', () => {
    const given = domException('SyntaxError', 'url', 'a message');
    expect(given).toBeInstanceOf(DOMException);
    expect([given.name, given.message]).toEqual(['SyntaxError', 'a message']);
    const short = domException('InvalidAccessError', 'code', '');
    expect([short.name, short.message]).toEqual([
      'InvalidAccessError',
      productionMessage('code', 'InvalidAccessError'),
    ]);
  });

  it('without a DOMException (React Native): an Error with the name', () => {
    vi.stubGlobal('DOMException', undefined);
    const error = domException('SyntaxError', 'protocols', '');
    expect(error.constructor).toBe(Error);
    expect(error.name).toBe('SyntaxError');
    expect(error.message).toBe('`protocols`: SyntaxError (development builds say more)');
  });
});
