import { describe, expect, it } from 'vitest';
import { jsonCodec } from '../../../src/features/delivery/codec.js';

describe('jsonCodec', () => {
  it('encodes the three frames as JSON text', () => {
    expect(jsonCodec.encode({ rs: 'hello', session: 's' })).toBe('{"rs":"hello","session":"s"}');
    expect(jsonCodec.encode({ rs: 'msg', id: '1', data: { a: [1] } })).toBe('{"rs":"msg","id":"1","data":{"a":[1]}}');
    expect(jsonCodec.encode({ rs: 'msg', id: '2', data: null })).toBe('{"rs":"msg","id":"2","data":null}');
    expect(jsonCodec.encode({ rs: 'ack', id: '1' })).toBe('{"rs":"ack","id":"1"}');
    expect(() => jsonCodec.encode({ rs: 'msg', id: '1', data: undefined })).toThrow(TypeError);
  });

  it('refuses binary data (JSON would send it changed: `{}` or an object of indexes)', () => {
    for (const data of [
      new ArrayBuffer(2),
      new Uint8Array([1, 2]),
      new DataView(new ArrayBuffer(1)),
      new Blob(['x']),
    ]) {
      expect(() => jsonCodec.encode({ rs: 'msg', id: '1', data })).toThrow(TypeError);
    }
    // Inside a JSON value, as JSON itself would have it: the caller chose that shape.
    expect(jsonCodec.encode({ rs: 'msg', id: '1', data: { at: new Date(0) } })).toBe(
      '{"rs":"msg","id":"1","data":{"at":"1970-01-01T00:00:00.000Z"}}',
    );
  });

  it('decodes them; anything else is not a frame (it passes through)', () => {
    expect(jsonCodec.decode('{"rs":"msg","id":"3","data":false}')).toEqual({ rs: 'msg', id: '3', data: false });
    expect(jsonCodec.decode('{"rs":"ack","id":"3"}')).toEqual({ rs: 'ack', id: '3' });
    expect(jsonCodec.decode('{"rs":"hello","session":"x"}')).toEqual({ rs: 'hello', session: 'x' });
    for (const raw of [
      '{"rs":"msg","id":"3"}', // no data
      '{"rs":"msg","id":3,"data":1}', // a number id
      '{"rs":"ack"}',
      '{"rs":"other","id":"1"}',
      '{"rs":"ack","id":"1"', // not JSON
      '"rs"',
      'null',
      '{"type":"chat"}',
      'plain',
      new Uint8Array([123]),
      null,
    ]) {
      expect(jsonCodec.decode(raw)).toBeUndefined();
    }
  });
});
