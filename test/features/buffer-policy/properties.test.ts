/**
 * A property of `bufferPolicy()` over arbitrary limits, policies, ttls, payloads and clock steps:
 * send() matches a plain-array model (its outcome, the drops in order, the limits, the ttl timer),
 * and close() drops exactly what the model still holds.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { Data } from '../../../src/data.js';
import { isResilientSocketError, type ResilientSocketError } from '../../../src/errors.js';
import { bufferPolicy, type OverflowPolicy } from '../../../src/features/buffer-policy/buffer-policy.js';
import { type PayloadKind, utf8String } from '../../helpers/payloads.js';
import { createSocket, record, thrown, uniqueUrl } from '../../resilient-socket/helpers.js';
import { overflowMessage, setUpBufferPolicy } from './helpers.js';

setUpBufferPolicy();

/** A payload of `size` bytes, told apart from the others by its content where it has any. */
function payload(kind: PayloadKind, size: number, id: number): Data {
  if (kind === 'bytes') return new Uint8Array(size).fill(id % 256);
  if (kind === 'arraybuffer') return new Uint8Array(size).fill(id % 256).buffer;
  return utf8String(size, id);
}

type Op =
  | { readonly op: 'send'; readonly kind: PayloadKind; readonly size: number }
  | { readonly op: 'advance'; readonly by: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('send' as const),
      kind: fc.constantFrom<PayloadKind>('string', 'bytes', 'arraybuffer'),
      size: fc.nat({ max: 14 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('advance' as const), by: fc.integer({ min: -3, max: 8 }) }) },
);

const optionsArb = fc.record({
  maxMessages: fc.nat({ max: 6 }),
  maxBytes: fc.oneof(fc.nat({ max: 40 }), fc.constant(Number.POSITIVE_INFINITY)),
  overflow: fc.constantFrom<OverflowPolicy>('drop-oldest', 'drop-newest', 'error'),
  ttl: fc.constantFrom(Number.POSITIVE_INFINITY, 4, 10),
});

interface Entry {
  readonly data: Data;
  readonly size: number;
  readonly at: number;
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

describe('bufferPolicy properties', () => {
  it('send() matches a plain-array model: outcome, drops in order, limits, and what close() finds', () => {
    fc.assert(
      fc.property(optionsArb, fc.array(opArb, { maxLength: 60 }), (options, ops) => {
        const { maxMessages, maxBytes, overflow, ttl } = options;
        vi.setSystemTime(1_000_000);
        const socket = createSocket(uniqueUrl(), {
          autoConnect: false,
          buffer: { maxMessages, maxBytes },
          bufferPolicy: bufferPolicy({ overflow, ttl }),
        });
        const log = record(socket, ['drop']);
        const model: Entry[] = [];
        const modelBytes = () => model.reduce((sum, e) => sum + e.size, 0);
        let dropped = 0;
        let sent = 0;

        for (const step of ops) {
          if (step.op === 'advance') {
            // The wall clock moves, possibly back (adjusted); the ttl timer never fires here.
            vi.setSystemTime(Date.now() + step.by);
            continue;
          }
          log.clear();
          const now = Date.now();
          const data = payload(step.kind, step.size, sent++);
          const size = step.size;
          const expected: { reason: string; messages: Data[] }[] = [];
          const stale = model.filter((e) => now - e.at >= ttl);
          if (stale.length > 0) expected.push({ reason: 'expired', messages: stale.map((e) => e.data) });
          model.splice(0, model.length, ...model.filter((e) => now - e.at < ttl));
          const fits = () => model.length + 1 <= maxMessages && modelBytes() + size <= maxBytes;
          const fitsAlone = maxMessages >= 1 && size <= maxBytes;

          if (!fits() && overflow === 'error') {
            const reason = fitsAlone
              ? `a message of ${plural(size, 'byte')} does not fit`
              : maxMessages === 0
                ? 'buffering is disabled (`buffer.maxMessages` is 0)'
                : `a message of ${plural(size, 'byte')} is larger than \`buffer.maxBytes\``;
            const error = thrown(() => socket.send(data)) as ResilientSocketError;
            expect(isResilientSocketError(error)).toBe(true);
            expect(error.code).toBe('ERR_RS_BUFFER_OVERFLOW');
            expect(error.message).toBe(
              overflowMessage(
                `Outbound buffer overflow: the buffer holds ${plural(model.length, 'message')} of ${maxMessages} and ` +
                  `${plural(modelBytes(), 'byte')} of ${maxBytes}; ${reason} (\`buffer.overflow\` is "error")`,
              ),
            );
          } else if (!fits() && (overflow === 'drop-newest' || !fitsAlone)) {
            expect(socket.send(data)).toBe('dropped');
            expected.push({ reason: 'overflow', messages: [data] });
          } else {
            const evicted: Entry[] = [];
            while (!fits()) evicted.push(model.shift() as Entry);
            if (evicted.length > 0) expected.push({ reason: 'overflow', messages: evicted.map((e) => e.data) });
            expect(socket.send(data)).toBe('buffered');
            model.push({ data, size, at: now });
          }
          expect(log.events.map((e) => e.payload)).toEqual(expected);
          dropped += expected.reduce((sum, d) => sum + d.messages.length, 0);

          expect(socket.bufferedCount).toBe(model.length);
          expect(socket.bufferedCount).toBeLessThanOrEqual(maxMessages);
          expect(modelBytes()).toBeLessThanOrEqual(maxBytes);
          expect(socket.stats.dropped).toBe(dropped);
          // A queue that can expire always has its timer armed.
          if (ttl !== Number.POSITIVE_INFINITY && model.length > 0) expect(vi.getTimerCount()).toBe(1);
          if (ttl === Number.POSITIVE_INFINITY) expect(vi.getTimerCount()).toBe(0);
        }

        // Everything still queued is what the model holds, in its order.
        log.clear();
        socket.close();
        expect(log.events.map((e) => e.payload)).toEqual(
          model.length === 0 ? [] : [{ reason: 'closed', messages: model.map((e) => e.data) }],
        );
        expect(vi.getTimerCount()).toBe(0);
        socket.removeAllListeners();
      }),
      { numRuns: 300 },
    );
  });
});
