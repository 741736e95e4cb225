/**
 * The payloads the package moves, and how big they are. Sizes are what the outbound buffer's
 * `maxBytes` counts: UTF-8 bytes for strings, `byteLength` for binary data, `size` for Blobs.
 */

/** Anything `WebSocket.send()` accepts. */
export type Data = string | ArrayBufferLike | ArrayBufferView | Blob;

/** The UTF-8 length of a string, without allocating (surrogate pairs count as 4 bytes). */
export function utf8Length(text: string): number {
  let bytes = 0;
  // By code point: a surrogate pair is one 4-byte character; a lone surrogate counts 3 (encoded as U+FFFD).
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** The size in bytes of a payload, as the outbound buffer counts it. */
export function byteLengthOf(data: Data): number {
  if (typeof data === 'string') return utf8Length(data);
  if (typeof (data as ArrayBufferLike).byteLength === 'number') return (data as ArrayBufferLike).byteLength;
  if (typeof (data as Blob).size === 'number') return (data as Blob).size;
  return 0;
}

/** True for the payload types `send()` accepts. */
export function isData(value: unknown): value is Data {
  if (typeof value === 'string') return true;
  // (`instanceof` and `isView` are false for every other primitive, and for null.)
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return true;
  if (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer) return true;
  return typeof Blob !== 'undefined' && value instanceof Blob;
}

/**
 * A copy of `data` that nobody else can change or detach, for the outbound buffer. Queued binary
 * data is copied when it is queued, as a browser's `WebSocket.send()` takes a snapshot of the bytes:
 * the caller may reuse, change or transfer (to a worker) its buffer the moment `send()` returns,
 * and the message that goes out later is still the one it sent. Strings and Blobs are immutable and
 * kept as they are; typed arrays stay of their type (a Node `Buffer` stays a `Buffer`).
 *
 * @throws TypeError for binary data that is already detached (transferred): it can never be sent.
 */
export function ownCopy(data: Data): Data {
  if (typeof data === 'string' || !(typeof data === 'object')) return data;
  if (ArrayBuffer.isView(data)) {
    if (data instanceof DataView) {
      const start = data.byteOffset; // throws for a detached buffer
      return new DataView(data.buffer.slice(start, start + data.byteLength));
    }
    return (TYPED_ARRAY_SLICE as (this: ArrayBufferView) => ArrayBufferView).call(data);
  }
  if (
    typeof (data as ArrayBufferLike).slice === 'function' &&
    typeof (data as ArrayBufferLike).byteLength === 'number'
  ) {
    return (data as ArrayBufferLike).slice(0);
  }
  return data; // a Blob
}

/** `%TypedArray%.prototype.slice`: copies into a new array of the same type (it throws when detached). */
const TYPED_ARRAY_SLICE = /* @__PURE__ */ (() => Object.getPrototypeOf(Uint8Array.prototype).slice as unknown)();
