/**
 * The frames of acknowledged delivery as the server reads and writes them (`docs/guide/protocol.md`): the
 * client's codec module (`delivery({ codec })`), so one codec object serves both sides, and the
 * checks of what a user's codec decodes and encodes.
 */
import type { ResilientSocketError } from '../errors.js';
import { type DeliveryCodec, type Frame, MAX_ID_LENGTH } from '../features/delivery/codec.js';
import { codecFailed, unencodable } from './failures.js';
import type { ServerSocket } from './session.js';

export { type DeliveryCodec, type Frame, jsonCodec, MAX_ID_LENGTH } from '../features/delivery/codec.js';

/** Whether `value` is a frame: what a user's `decode` returns is checked before it is trusted. */
export function isFrame(value: unknown): value is Frame {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const f = value as { rs?: unknown; id?: unknown; session?: unknown };
  if (f.rs === 'hello') return typeof f.session === 'string';
  if (f.rs === 'ack') return typeof f.id === 'string';
  return f.rs === 'msg' && typeof f.id === 'string' && Object.hasOwn(f, 'data');
}

/**
 * The rule of the protocol a frame read from a client breaks with the length of its id or
 * session id (longer than {@link MAX_ID_LENGTH}), or `undefined`; the id itself is never told.
 */
export function idRule(frame: Frame): { readonly rule: string; readonly reason: string } | undefined {
  if ((frame.rs === 'hello' ? frame.session : frame.id).length <= MAX_ID_LENGTH) return undefined;
  return frame.rs === 'hello'
    ? { rule: `a session id longer than ${MAX_ID_LENGTH} characters`, reason: 'Session id too long' }
    : { rule: `an id longer than ${MAX_ID_LENGTH} characters`, reason: 'Id too long' };
}

/** Whether the codec's output can be written: a string, an ArrayBuffer or a Uint8Array (a Buffer). */
export function isWireData(value: unknown): value is string | ArrayBuffer | Uint8Array {
  return typeof value === 'string' || value instanceof ArrayBuffer || value instanceof Uint8Array;
}

/**
 * The `msg` frame of message `id`, as `codec` encodes it, or the error that says why it cannot be
 * sent (a TypeError for data the codec refuses, `ERR_RS_CALLBACK_FAILED` for a codec that returns
 * something that cannot be written).
 */
export function encodeMessage(
  codec: DeliveryCodec,
  id: string,
  data: unknown,
): string | ArrayBuffer | Uint8Array | TypeError | ResilientSocketError {
  let frame: unknown;
  try {
    frame = codec.encode({ rs: 'msg', id, data });
  } catch (thrown) {
    return unencodable(thrown);
  }
  return isWireData(frame)
    ? frame
    : codecFailed('encode', 'returned neither a string nor binary data', describeType(frame));
}

/** What a codec returned, for the message of a failure. */
export function describeType(value: unknown): Error {
  return new TypeError(`it returned ${value === null ? 'null' : typeof value}`);
}

/** A text message as a string (`ws` gives a Buffer, or fragments, or an ArrayBuffer per `binaryType`). */
export function textOf(data: unknown): unknown {
  if (typeof data === 'string') return data;
  if (Array.isArray(data)) return Buffer.concat(data as Uint8Array[]).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  if (data instanceof Uint8Array) return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  return data;
}

/**
 * Writes a frame the server makes (an acknowledgement) on `socket`; returns the codec's failure,
 * if it failed. Not while the connection holds more than `maxUnwritten` bytes unwritten (a client
 * that sends without reading): the client sends the message again, and its copy is acknowledged then.
 */
export function writeFrame(
  socket: ServerSocket,
  frame: Frame,
  codec: DeliveryCodec,
  maxUnwritten: number,
): ResilientSocketError | undefined {
  if ((socket.bufferedAmount ?? 0) > maxUnwritten) return undefined;
  let raw: string | ArrayBuffer | Uint8Array;
  try {
    raw = codec.encode(frame);
  } catch (thrown) {
    return codecFailed('encode', `threw for an ${frame.rs}`, thrown);
  }
  if (socket.readyState !== 1) return undefined;
  try {
    socket.send(raw);
  } catch {
    // closing: the client sends the message again after its next hello, and it is acknowledged then
  }
  return undefined;
}
