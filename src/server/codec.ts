/**
 * The frames of acknowledged delivery as the server reads and writes them (`docs/protocol.md`), and
 * the default codec, JSON text frames. The shape is the client's (`delivery({ codec })`): one codec
 * object serves both sides.
 */

/**
 * A frame of the delivery protocol:
 * - `hello`: a client's first frame on every connection, naming its session (stable across
 *   reconnects, and across reloads with a persistent store);
 * - `msg`: a reliable message, in either direction; `id` is unique per sender and session;
 * - `ack`: the acknowledgement of the `msg` with that `id`, sent once the receiver's listeners ran.
 */
export type Frame =
  | {
      /** The frame's kind. */
      readonly rs: 'hello';
      /** The client's session id. */
      readonly session: string;
    }
  | {
      /** The frame's kind. */
      readonly rs: 'msg';
      /** The message's id, unique per sender and session. */
      readonly id: string;
      /** What the message carries. */
      readonly data: unknown;
    }
  | {
      /** The frame's kind. */
      readonly rs: 'ack';
      /** The id of the message acknowledged. */
      readonly id: string;
    };

/**
 * How frames go on the wire: `ReliableServer`'s `codec` option (and the client's). Replace it to
 * carry the protocol inside an existing one with its own ids and acknowledgements.
 *
 * @example
 * ```ts
 * // A protocol of { type: 'event', seq, payload }, { type: 'ack', seq } and { type: 'resume', token }.
 * const codec: DeliveryCodec = {
 *   encode: (frame) =>
 *     JSON.stringify(
 *       frame.rs === 'msg' ? { type: 'event', seq: frame.id, payload: frame.data }
 *       : frame.rs === 'ack' ? { type: 'ack', seq: frame.id }
 *       : { type: 'resume', token: frame.session },
 *     ),
 *   decode(raw) {
 *     if (typeof raw !== 'string') return undefined;
 *     let m;
 *     try { m = JSON.parse(raw); } catch { return undefined; }
 *     if (m?.type === 'event') return { rs: 'msg', id: String(m.seq), data: m.payload };
 *     if (m?.type === 'ack') return { rs: 'ack', id: String(m.seq) };
 *     if (m?.type === 'resume') return { rs: 'hello', session: String(m.token) };
 *     return undefined; // not the protocol's: `plain` gets it as it came
 *   },
 * };
 * ```
 */
export interface DeliveryCodec {
  /**
   * The frame as it goes on the wire: a string is sent as a text frame, binary data as a binary
   * frame. For a `msg` whose `data` it cannot encode it throws (`send()` then rejects with a
   * TypeError, `ERR_RS_INVALID_TYPE`).
   */
  encode(frame: Frame): string | ArrayBuffer | Uint8Array;
  /**
   * The frame an incoming message is, or `undefined` for one that is not the protocol's (it passes
   * through). The server calls it for every incoming message: a text message as a string, a binary
   * one as `ws` gives it (a Node `Buffer`, with ws's default `binaryType`).
   */
  decode(raw: unknown): Frame | undefined;
}

/** Whether `value` is one of the three frames (extra properties are allowed: they are ignored). */
export function isFrame(value: unknown): value is Frame {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const f = value as { rs?: unknown; id?: unknown; session?: unknown };
  if (f.rs === 'hello') return typeof f.session === 'string';
  if (f.rs === 'ack') return typeof f.id === 'string';
  return f.rs === 'msg' && typeof f.id === 'string' && Object.hasOwn(f, 'data');
}

/**
 * The default codec: each frame one JSON text message, its keys in this order:
 * `{"rs":"hello","session":"…"}`, `{"rs":"msg","id":"…","data":…}`, `{"rs":"ack","id":"…"}`.
 * Reading, any text that is not a JSON object with an `rs` of one of the three (and the fields it
 * needs, of the right type) is not a frame, nor is any binary message: they pass through. Text
 * without `"rs"` in it is not parsed at all.
 * @example
 * ```ts
 * new ReliableServer(wss, { codec: jsonCodec }) // the default
 * ```
 */
export const jsonCodec: DeliveryCodec = /* @__PURE__ */ Object.freeze({
  encode(frame: Frame): string {
    if (frame.rs === 'hello') return `{"rs":"hello","session":${JSON.stringify(frame.session)}}`;
    const id = JSON.stringify(frame.id);
    if (frame.rs === 'ack') return `{"rs":"ack","id":${id}}`;
    // `data` on its own: inside an object, JSON.stringify would leave out a value it cannot write
    // (undefined, a function, a symbol), and the message would go without its data.
    const data = JSON.stringify(frame.data) as string | undefined;
    if (data === undefined) {
      throw new TypeError(process.env.NODE_ENV !== 'production' ? 'it has no JSON form' : '');
    }
    return `{"rs":"msg","id":${id},"data":${data}}`;
  },
  decode(raw: unknown): Frame | undefined {
    if (typeof raw !== 'string' || !raw.includes('"rs"')) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return undefined;
    }
    return isFrame(value) ? value : undefined;
  },
});
