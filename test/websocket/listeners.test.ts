/**
 * `addEventListener`'s argument checks, as a WebSocket's (the messages Chromium gives, in
 * development builds), each a TypeError with its code that names the argument.
 */
import { describe, expect, it } from 'vitest';
import { Listeners } from '../../src/websocket/listeners.js';
import { expectInputError } from '../helpers/mode.js';

describe('addEventListener: its arguments', () => {
  const add =
    (...args: unknown[]) =>
    () =>
      (new Listeners().addEventListener as (...a: unknown[]) => void)(...args);

  it('fewer than two: a TypeError naming the first one missing', () => {
    const missing = (given: number) =>
      `Failed to execute 'addEventListener' on 'EventTarget': 2 arguments required, but only ${given} present.`;
    expectInputError(add(), TypeError, 'ERR_RS_INVALID_TYPE', 'type', missing(0));
    expectInputError(add('message'), TypeError, 'ERR_RS_INVALID_TYPE', 'listener', missing(1));
  });

  it('a listener that is neither a function nor an object: a TypeError naming `listener`', () => {
    for (const listener of [5, 'f', true]) {
      expectInputError(
        add('message', listener),
        TypeError,
        'ERR_RS_INVALID_TYPE',
        'listener',
        "Failed to execute 'addEventListener' on 'EventTarget': parameter 2 is not of type 'Object'.",
      );
    }
  });

  it('a null or undefined listener is no error, and adds nothing', () => {
    const target = new Listeners();
    expect(() => target.addEventListener('message', null)).not.toThrow();
    expect(() => (target.addEventListener as (...a: unknown[]) => void)('message', undefined)).not.toThrow();
    expect(target.listens_('message')).toBe(false);
  });
});
