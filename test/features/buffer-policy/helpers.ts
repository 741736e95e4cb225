/**
 * What the bufferPolicy test files share: fake timers and the cleanup of every socket and server
 * after each test, the checks of option errors and of ERR_RS_BUFFER_OVERFLOW, and idle sockets
 * (everything they are sent is queued).
 */
import { afterEach, beforeEach, expect, vi } from 'vitest';
import type { QueueOptions } from '../../../src/core/options.js';
import type { Data } from '../../../src/data.js';
import { ErrorCodes, isResilientSocketError, ResilientSocketError } from '../../../src/errors.js';
import { type BufferPolicyOptions, bufferPolicy } from '../../../src/features/buffer-policy/buffer-policy.js';
import { ResilientSocket } from '../../../src/node.js';
import { expectInputError, inMode, productionMessage } from '../../helpers/mode.js';
import { cleanup, createSocket, thrown, uniqueUrl, WebSocketImpl } from '../../resilient-socket/helpers.js';

/** Registers fake timers before each test and the cleanup after it (call it once, at the top of the file). */
export function setUpBufferPolicy(): void {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(cleanup);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The code of a TypeError (a wrong type) or a RangeError (a bad value) about an option. */
const codeOf = (Type: ErrorConstructor): string =>
  Type === TypeError ? 'ERR_RS_INVALID_TYPE' : 'ERR_RS_INVALID_VALUE';

/**
 * Asserts exactly `Type` with its code, naming `name`: in development `` `name` `` in a message
 * ending with `got <received>`.
 */
export function expectOptionError(fn: () => unknown, Type: ErrorConstructor, name: string, received: string): Error {
  const pattern = new RegExp(`\`${escapeRegExp(name)}\`.*got ${escapeRegExp(received)}$`);
  return expectInputError(fn, Type, codeOf(Type), name, pattern);
}

/** The message of a TypeError (`Type`) or RangeError about `name`: `development`, or the production one. */
export const optionMessage = (Type: ErrorConstructor, name: string, development: string): string =>
  inMode(development, productionMessage(name, codeOf(Type)));

/** Asserts a TypeError about the unknown option `name`; in development, the message `devText`. */
export function expectUnknownOption(fn: () => unknown, name: string, devText: string): void {
  expectInputError(fn, TypeError, 'ERR_RS_UNKNOWN_OPTION', name, devText);
}

/** The message of `ERR_RS_BUFFER_OVERFLOW`: `development`, or (a production build) the code. */
export const overflowMessage = (development: string): string => inMode(development, 'ERR_RS_BUFFER_OVERFLOW');

/** The queue's limits (`buffer`) and the policies (`bufferPolicy`) of one socket, written together. */
export type BufferAndPolicy = QueueOptions & BufferPolicyOptions;

/**
 * `buffer` and `bufferPolicy` options for ResilientSocket from the limits and policies written
 * together: the limits as `buffer`, the policies (when any is given) as `bufferPolicy({ overflow, ttl })`.
 */
export function bufferOptions(given?: BufferAndPolicy): {
  buffer?: QueueOptions;
  bufferPolicy?: ReturnType<typeof bufferPolicy>;
} {
  if (given === undefined) return {};
  const { overflow, ttl, ...buffer } = given;
  const policies: BufferPolicyOptions = {};
  if (overflow !== undefined) policies.overflow = overflow;
  if (ttl !== undefined) policies.ttl = ttl;
  return {
    buffer,
    ...(overflow === undefined && ttl === undefined ? {} : { bufferPolicy: bufferPolicy(policies) }),
  };
}

/**
 * A ResilientSocket that stays idle (everything it is sent is queued), tracked for cleanup. What it
 * still queues when the test ends is dropped by the cleanup's close(): heard, as an app would.
 * `buffer` holds the queue's limits and the policies, given as `buffer` and `bufferPolicy(…)`.
 */
export function idleSocket(buffer?: BufferAndPolicy): ResilientSocket {
  const socket = createSocket(uniqueUrl(), { autoConnect: false, ...bufferOptions(buffer) });
  socket.on('drop', () => undefined);
  return socket;
}

/** `new ResilientSocket` with only `buffer` (and mock-socket), for the option errors. */
export function withBuffer(buffer: unknown): () => ResilientSocket {
  return () =>
    new ResilientSocket(uniqueUrl(), { WebSocket: WebSocketImpl, autoConnect: false, buffer: buffer as never });
}

/**
 * `new ResilientSocket` with `bufferPolicy: bufferPolicy(policies)` (and `buffer`, when given, and
 * mock-socket), for the option errors: `bufferPolicy()` validates them as it is called, inside the thunk.
 */
export function withPolicy(policies: unknown, buffer?: unknown): () => ResilientSocket {
  return () =>
    new ResilientSocket(uniqueUrl(), {
      WebSocket: WebSocketImpl,
      autoConnect: false,
      ...(buffer === undefined ? {} : { buffer: buffer as never }),
      bufferPolicy: bufferPolicy(policies as never),
    });
}

/** Runs `socket.send(data)`, expects ERR_RS_BUFFER_OVERFLOW and nothing else to change, and returns the error. */
export function expectOverflow(socket: ResilientSocket, data: Data): ResilientSocketError {
  const before = { count: socket.bufferedCount, dropped: socket.stats.dropped, timers: vi.getTimerCount() };
  const error = thrown(() => socket.send(data));
  expect(error).toBeInstanceOf(ResilientSocketError);
  expect(isResilientSocketError(error)).toBe(true);
  expect((error as ResilientSocketError).code).toBe(ErrorCodes.BUFFER_OVERFLOW);
  expect((error as ResilientSocketError).code).toBe('ERR_RS_BUFFER_OVERFLOW');
  expect((error as ResilientSocketError).name).toBe('ResilientSocketError');
  expect({ count: socket.bufferedCount, dropped: socket.stats.dropped, timers: vi.getTimerCount() }).toEqual(before);
  return error as ResilientSocketError;
}

/** The overflow policies, as the messages list them. */
export const POLICIES = '"drop-oldest", "drop-newest" or "error"';
