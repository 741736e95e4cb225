/**
 * The frames of acknowledged delivery as the server reads and writes them (`docs/guide/protocol.md`): the
 * client's codec module (`delivery({ codec })`), so one codec object serves both sides, and the
 * checks of what a user's codec decodes and encodes.
 */
import { type Frame, MAX_ID_LENGTH } from '../features/delivery/codec.js';

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
