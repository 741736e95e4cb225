import { describe, expect, it } from 'vitest';
import { BUFFER_DEFAULTS, OutboundBuffer, resolveBufferOptions } from '../../src/buffer/outbound-buffer.js';

describe('buffer options: unknown keys', () => {
  it('a misspelt option is a TypeError that suggests the right one, prefixed with `buffer.`', () => {
    expect(() => resolveBufferOptions({ maxMessage: 5 })).toThrow(TypeError);
    expect(() => resolveBufferOptions({ maxMessage: 5 })).toThrow(
      'Unknown option `buffer.maxMessage`: did you mean `buffer.maxMessages`?',
    );
    expect(() => resolveBufferOptions({ TTL: 5 })).toThrow('Unknown option `buffer.TTL`: did you mean `buffer.ttl`?');
  });

  it('without a close match, lists the buffer’s options', () => {
    expect(() => resolveBufferOptions({ policy: 'error' })).toThrow(
      'Unknown option `buffer.policy`: the options of `buffer` are `maxMessages`, `maxBytes`, `overflow`, `ttl`',
    );
  });

  it('the OutboundBuffer constructor refuses them too, and still takes resolved options', () => {
    expect(() => new OutboundBuffer({ maxMesages: 1 } as never)).toThrow(TypeError);
    expect(() => new OutboundBuffer(BUFFER_DEFAULTS)).not.toThrow();
    expect(() => new OutboundBuffer(resolveBufferOptions({ ttl: 5 }))).not.toThrow();
  });
});
