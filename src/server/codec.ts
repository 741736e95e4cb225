/**
 * The frames of acknowledged delivery as the server reads and writes them (`docs/guide/protocol.md`): the
 * client's codec module (`delivery({ codec })`), so one codec object serves both sides, and a check
 * of what a user's codec decodes.
 */
import type { Frame } from '../features/delivery/codec.js';

export { type DeliveryCodec, type Frame, jsonCodec } from '../features/delivery/codec.js';

/** Whether `value` is a frame: what a user's `decode` returns is checked before it is trusted. */
export function isFrame(value: unknown): value is Frame {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const f = value as { rs?: unknown; id?: unknown; session?: unknown };
  if (f.rs === 'hello') return typeof f.session === 'string';
  if (f.rs === 'ack') return typeof f.id === 'string';
  return f.rs === 'msg' && typeof f.id === 'string' && Object.hasOwn(f, 'data');
}
