import { describe, expect, it } from 'vitest';
import { isFrame, jsonCodec } from '../../src/server/codec.js';

describe('jsonCodec', () => {
  it('writes the three frames as the protocol spells them', () => {
    expect(jsonCodec.encode({ rs: 'hello', session: 'a"b' })).toBe('{"rs":"hello","session":"a\\"b"}');
    expect(jsonCodec.encode({ rs: 'msg', id: '12', data: { x: [1, null] } })).toBe(
      '{"rs":"msg","id":"12","data":{"x":[1,null]}}',
    );
    expect(jsonCodec.encode({ rs: 'msg', id: '1', data: null })).toBe('{"rs":"msg","id":"1","data":null}');
    expect(jsonCodec.encode({ rs: 'ack', id: '12' })).toBe('{"rs":"ack","id":"12"}');
  });

  it('refuses a message whose data has no JSON form (rather than sending it without its data)', () => {
    expect(() => jsonCodec.encode({ rs: 'msg', id: '1', data: undefined })).toThrow(TypeError);
    expect(() => jsonCodec.encode({ rs: 'msg', id: '1', data: () => 1 })).toThrow(TypeError);
  });

  it('reads the frames, extra fields ignored, and nothing else', () => {
    expect(jsonCodec.decode('{"rs":"hello","session":"s"}')).toEqual({ rs: 'hello', session: 's' });
    expect(jsonCodec.decode('{"rs":"msg","id":"1","data":[1]}')).toEqual({ rs: 'msg', id: '1', data: [1] });
    expect(jsonCodec.decode('{"rs":"msg","id":"1","data":null}')).toEqual({ rs: 'msg', id: '1', data: null });
    expect(jsonCodec.decode('{"rs":"ack","id":"1","v":2}')).toMatchObject({ rs: 'ack', id: '1' });
    for (const raw of [
      'hello',
      '{"rs":"msg","id":"1"}', // no data
      '{"rs":"msg","id":1,"data":1}', // a number id
      '{"rs":"ack"}',
      '{"rs":"hello","session":5}',
      '{"rs":"other","id":"1"}',
      '["rs","ack"]',
      '{"rs":',
      'null',
      Buffer.from('{"rs":"ack","id":"1"}'), // binary is never a frame of the JSON codec
      undefined,
    ]) {
      expect(jsonCodec.decode(raw)).toBeUndefined();
    }
  });

  it('isFrame checks the fields each frame needs', () => {
    expect(isFrame({ rs: 'msg', id: 'x', data: undefined })).toBe(true);
    expect(isFrame({ rs: 'msg', id: 'x' })).toBe(false);
    expect(isFrame(null)).toBe(false);
    expect(isFrame([])).toBe(false);
  });
});
