/**
 * The frames of acknowledged delivery and how they go on the wire (`docs/guide/protocol.md`). The default
 * codec, {@link jsonCodec}, writes JSON text frames; a codec of your own maps the same three frames
 * onto an existing server protocol with its own ids and acknowledgements.
 */

import type { Host } from '../../core/feature.js';
import { callbackError } from '../../core/report.js';
import { isData } from '../../data.js';
import { describeThrown, typeError } from '../../validation.js';

/**
 * A frame of the delivery protocol:
 * - `hello`: the client's first frame on every connection, with its session id (stable across
 *   reconnects, and across reloads with a persistent store);
 * - `msg`: a reliable message, in either direction; `id` is the sender's sequence number in base 10,
 *   unique per sender across reconnects and reloads;
 * - `ack`: the acknowledgement of the `msg` with that `id`, sent once the receiver's listeners ran.
 */
export type Frame =
  | {
      /** A hello. */
      readonly rs: 'hello';
      /** The client's session id. */
      readonly session: string;
    }
  | {
      /** A reliable message. */
      readonly rs: 'msg';
      /** Its id: the sender's sequence number in base 10. */
      readonly id: string;
      /** What was sent (a JSON value with the default codec). */
      readonly data: unknown;
    }
  | {
      /** An acknowledgement. */
      readonly rs: 'ack';
      /** The id of the `msg` it acknowledges. */
      readonly id: string;
    };

/**
 * The longest id and session id the protocol allows, in characters (UTF-16 code units). Both sides
 * refuse a frame that carries a longer one (`ERR_RS_PROTOCOL_VIOLATION`, close 1008): what a peer
 * can make the other keep (its de-duplication window, its session table) is bounded by it. The
 * package's own ids are far shorter: base-10 sequence numbers, and UUIDs for sessions.
 */
export const MAX_ID_LENGTH = 128;

/**
 * How frames go on the wire: the `delivery()` feature's `codec` option.
 *
 * @example
 * ```ts
 * // A server that speaks { type: 'event', seq, payload } and { type: 'ack', seq }.
 * const codec: DeliveryCodec = {
 *   encode: (frame) =>
 *     JSON.stringify(
 *       frame.rs === 'msg' ? { type: 'event', seq: frame.id, payload: frame.data }
 *       : frame.rs === 'ack' ? { type: 'ack', seq: frame.id }
 *       : { type: 'hello', session: frame.session },
 *     ),
 *   decode(raw) {
 *     const parsed = typeof raw === 'string' ? JSON.parse(raw) : undefined;
 *     if (parsed?.type === 'event') return { rs: 'msg', id: String(parsed.seq), data: parsed.payload };
 *     if (parsed?.type === 'ack') return { rs: 'ack', id: String(parsed.seq) };
 *     return undefined; // not ours: it reaches `message` listeners as it came
 *   },
 * };
 * ```
 */
export interface DeliveryCodec {
  /**
   * The frame as the socket sends it. For a `msg` whose `data` it cannot encode it throws:
   * `sendReliable()` then rejects with a TypeError (`ERR_RS_INVALID_TYPE`).
   */
  encode(frame: Frame): string | ArrayBuffer | Uint8Array;
  /**
   * The frame an incoming message is, or `undefined` for a message that is not one (it passes
   * through to `message` listeners untouched). Called for every incoming message, text or binary.
   */
  decode(raw: unknown): Frame | undefined;
}

/**
 * The default codec: one JSON text frame each, `{"rs":"hello","session":"…"}`,
 * `{"rs":"msg","id":"…","data":…}` and `{"rs":"ack","id":"…"}`. Any other message (text that is not
 * such a JSON object, any binary message) is not a frame and passes through. A text message without
 * `"rs"` in it is not parsed at all, so plain JSON traffic beside reliable messages costs a scan, not
 * a second parse.
 * @example
 * ```ts
 * new BaseSocket(url, { features: [delivery({ codec: jsonCodec })] }) // the default
 * ```
 */
export const jsonCodec: DeliveryCodec = {
  encode(frame) {
    const text = JSON.stringify(frame);
    const data = (frame as { data?: unknown }).data;
    // JSON.stringify leaves out a property it cannot encode (undefined, a function), which would
    // send a message without its data (a `"data":` outside a string is that property's key), and
    // turns binary data (what `send()` takes besides strings) into `{}` or an object of indexes:
    // refused, never sent changed.
    if (frame.rs === 'msg' && (!text.includes('"data":') || (typeof data !== 'string' && isData(data)))) {
      throw new TypeError(
        process.env.NODE_ENV !== 'production' ? 'it has no JSON form (binary data needs a codec of your own)' : '',
      );
    }
    return text;
  },
  decode(raw) {
    if (typeof raw === 'string' && raw.includes('"rs"')) {
      try {
        const f = JSON.parse(raw) as { rs?: unknown; id?: unknown; session?: unknown };
        // The field that must be a string: a hello's session, a msg's (with its data) or an ack's id.
        const key = f.rs === 'hello' ? f.session : f.rs === 'ack' || (f.rs === 'msg' && 'data' in f) ? f.id : 0;
        if (typeof key === 'string') return f as Frame;
      } catch {
        // not JSON, or not an object: not a frame
      }
    }
    return undefined;
  },
};

/**
 * Calls `codec`'s `encode` or `decode` for the socket `host`: what a user codec throws is reported
 * (`ERR_RS_CALLBACK_FAILED`), never thrown into the socket; `undefined` then.
 */
export function callCodec<K extends 'encode' | 'decode'>(
  host: Host,
  codec: DeliveryCodec,
  what: K,
  value: unknown,
): ReturnType<DeliveryCodec[K]> | undefined {
  try {
    return codec[what](value as never) as ReturnType<DeliveryCodec[K]>;
  } catch (thrown) {
    host.reportUserError_(
      callbackError(process.env.NODE_ENV !== 'production' ? `\`delivery.codec.${what}\` threw` : '', thrown),
    );
    return undefined;
  }
}

/**
 * The `msg` frame of `data` with the id `id`, as `codec` encodes it: what every send of that
 * message writes. @throws TypeError naming `data` when the codec cannot encode it.
 */
export function encodeMsg(codec: DeliveryCodec, id: string, data: unknown): unknown {
  try {
    return codec.encode({ rs: 'msg', id, data });
  } catch (thrown) {
    throw typeError(
      'data',
      process.env.NODE_ENV !== 'production' ? `sendReliable() cannot encode \`data\`: ${describeThrown(thrown)}` : '',
    );
  }
}
