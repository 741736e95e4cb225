// @vitest-environment jsdom
/**
 * `useResilientSocket` with a backoff policy in its options, with real React 19 (jsdom) against a
 * real ws server on 127.0.0.1. Written inline, every render makes a new policy object: the hook
 * must still see the same options (a policy compares by its factory and its options, a
 * `{ next, reset }` literal by value), so the component settles in three renders (idle,
 * connecting, open) on one connection, and the socket waits by that policy when the server goes
 * away. A `{ next, reset }` object held across renders, whose fields the socket changes, stays
 * one socket too. A render cap ends a render loop (the component then asks for no socket), so a
 * regression fails instead of rendering for ever.
 */
import { createElement, type ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import {
  constant,
  decorrelatedJitter,
  equalJitter,
  exponential,
  fullJitter,
  phasedBinaryExponential,
  truncatedBinaryExponential,
} from '../../../src/backoff/index.js';
import type { BackoffPolicyLike } from '../../../src/backoff/types.js';
import { type ResilientSocketHook, useResilientSocket } from '../../../src/react.js';
import { mount, pass, startServer, until } from './harness.js';

/** More renders than any settled component needs: past it the component lets go of its socket. */
const CAP = 40;

interface Seen {
  renders: number;
  hook: ResilientSocketHook | null;
  sockets: Set<unknown>;
  states: string[];
}
const seen = (): Seen => ({ renders: 0, hook: null, sockets: new Set(), states: [] });

/** Asks for a socket whose `backoff` is what `make` gives on this render. */
function Probe(props: { url: string; make: () => BackoffPolicyLike; seen: Seen }): ReactNode {
  const { seen } = props;
  seen.renders++;
  const hook = useResilientSocket(seen.renders > CAP ? null : props.url, { backoff: props.make() });
  seen.hook = hook;
  if (hook.socket) seen.sockets.add(hook.socket);
  if (hook.state !== seen.states.at(-1)) seen.states.push(hook.state);
  return createElement('p', null, hook.state);
}

const inline: [string, () => BackoffPolicyLike][] = [
  ['constant({ delay: 500 })', () => constant({ delay: 500 })],
  ['decorrelatedJitter({ base: 500, cap: 20_000 })', () => decorrelatedJitter({ base: 500, cap: 20_000 })],
  ['truncatedBinaryExponential({ maxDelay: 5_000 })', () => truncatedBinaryExponential({ maxDelay: 5_000 })],
  ['phasedBinaryExponential({ maxDelay: 5_000 })', () => phasedBinaryExponential({ maxDelay: 5_000 })],
  ['fullJitter()', () => fullJitter()],
  ['equalJitter({ random: () => 0.5 })', () => equalJitter({ random: () => 0.5 })],
  ['exponential({ base: 200 })', () => exponential({ base: 200 })],
  ['a { next, reset } literal', () => ({ next: () => 500, reset: () => {} })],
];

describe('a backoff policy written inline', () => {
  it.each(inline)('%s settles in at most 3 renders on one connection', async (_name, make) => {
    const server = await startServer();
    const s = seen();
    await mount(createElement(Probe, { url: server.url, make, seen: s }));
    await until(() => s.hook?.state === 'open' || s.renders > CAP, 'open (or the render cap)');
    await pass(200);
    expect(s.renders).toBeLessThanOrEqual(3);
    expect(s.hook?.state).toBe('open');
    expect(s.sockets.size).toBe(1);
    expect(server.connections).toBe(1);
  });

  it('is the policy the socket waits by when the server goes away, on the same socket', async () => {
    const server = await startServer();
    const refused: number[] = [];
    const verify = server.wss.options.verifyClient as (
      info: unknown,
      done: (ok: boolean, code: number) => void,
    ) => void;
    server.wss.options.verifyClient = (info: unknown, done: (ok: boolean, code: number) => void) => {
      if (server.down) refused.push(performance.now());
      verify(info, done);
    };
    const s = seen();
    await mount(createElement(Probe, { url: server.url, make: () => constant({ delay: 300 }), seen: s }));
    await until(() => s.hook?.state === 'open' || s.renders > CAP, 'open (or the render cap)');
    server.crash();
    await until(() => refused.length >= 3 || s.renders > CAP, 'three refused attempts (or the render cap)');
    server.down = false;
    await until(() => (s.hook?.state === 'open' && server.connections === 2) || s.renders > CAP, 'open again');
    expect(s.renders).toBeLessThan(CAP);
    expect(s.sockets.size).toBe(1);
    // Never 'idle' again: the component never lost its socket for another one.
    expect(s.states.filter((state) => state === 'idle')).toEqual(['idle']);
    expect(s.states).toContain('reconnecting');
    // Each retry waited the policy's 300 ms (timers fire late, never early; a little slack for the clock).
    const gaps = refused.slice(1).map((at, i) => at - (refused[i] as number));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(290);
  });
});

describe('a { next, reset } object held across renders', () => {
  it('stays one socket while the socket changes its fields, and waits by it', async () => {
    const server = await startServer();
    server.down = true;
    let attempts = 0;
    const verify = server.wss.options.verifyClient as (
      info: unknown,
      done: (ok: boolean, code: number) => void,
    ) => void;
    server.wss.options.verifyClient = (info: unknown, done: (ok: boolean, code: number) => void) => {
      attempts++;
      verify(info, done);
    };
    // Its state lives in its own fields, as a class-less policy's may; the hook sees the same object every render.
    const policy = {
      failures: 0,
      next() {
        this.failures++;
        return 100;
      },
      reset() {
        this.failures = 0;
      },
    };
    const s = seen();
    await mount(createElement(Probe, { url: server.url, make: () => policy, seen: s }));
    await until(() => policy.failures >= 4 || s.renders > CAP, 'four failures (or the render cap)');
    expect(s.sockets.size).toBe(1);
    expect(s.states.filter((state) => state === 'idle')).toEqual(['idle']);
    // One attempt per failure (the first one, then one after each 100 ms wait): no fresh socket retrying at once.
    expect(attempts).toBeLessThanOrEqual(policy.failures + 1);
    server.down = false;
    await until(() => s.hook?.state === 'open' || s.renders > CAP, 'open');
    expect(s.sockets.size).toBe(1);
    expect(server.connections).toBe(1);
    expect(s.renders).toBeLessThan(CAP);
  });
});
