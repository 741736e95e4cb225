/**
 * The hook's shared sockets' callbacks: what a component's `onMessage` or `onDrop` throws is
 * reported (`ERR_RS_LISTENER_THREW`, naming it in development builds) and never reaches the socket
 * or the other components; dropped messages nobody takes are a console warning in every build.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BaseSocket } from '../../src/core/socket.js';
import { hold, open, tellDropped, type User } from '../../src/react/shared.js';
import { inMode } from '../helpers/mode.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** A socket as the registry sees it: its listeners, by event. */
function fakeSocket() {
  const listeners = new Map<string, (payload: unknown) => void>();
  const socket = {
    state: 'idle',
    on: (event: string, listener: (payload: unknown) => void) => listeners.set(event, listener),
    close: () => undefined,
    send: () => 'buffered',
  };
  return {
    socket: socket as unknown as BaseSocket,
    fire: (event: string, payload: unknown) => listeners.get(event)?.(payload),
  };
}

/** The errors surfaced (as Node shows them: process warnings). */
function surfaced(): Error[] {
  const warnings: Error[] = [];
  vi.spyOn(process, 'emitWarning').mockImplementation(((warning: Error) => {
    warnings.push(warning);
  }) as typeof process.emitWarning);
  return warnings;
}

describe('the callbacks of the components', () => {
  it('an onMessage that throws is reported, naming it; the other components still get the message', () => {
    const warnings = surfaced();
    const { socket, fire } = fakeSocket();
    const entry = open(new Map(), 'k', '', socket, {});
    const got: unknown[] = [];
    hold(entry, {
      onMessage: () => {
        throw new Error('boom');
      },
    });
    hold(entry, { onMessage: (message) => got.push(message.data) });
    expect(() => fire('message', 'hello')).not.toThrow();
    expect(got).toEqual(['hello']);
    expect(warnings.map((w) => [(w as { code?: string }).code, w.message])).toEqual([
      ['ERR_RS_LISTENER_THREW', inMode('`onMessage` threw: boom', 'ERR_RS_LISTENER_THREW')],
    ]);
    expect(warnings[0]?.cause).toEqual(new Error('boom'));
  });

  it('an onDrop that throws is reported the same way', () => {
    const warnings = surfaced();
    const user: User = {
      onDrop: () => {
        throw new Error('no');
      },
    };
    tellDropped([user], { reason: 'closed', messages: ['x'] });
    expect(warnings.map((w) => w.message)).toEqual([inMode('`onDrop` threw: no', 'ERR_RS_LISTENER_THREW')]);
  });

  it('messages dropped with no onDrop to tell: a console warning, in every build', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    tellDropped([{}], { reason: 'not-connected', messages: ['a', 'b'] });
    expect(warn.mock.calls).toEqual([['resilient-socket/react: 2 message(s) not sent (not-connected)']]);
  });
});
