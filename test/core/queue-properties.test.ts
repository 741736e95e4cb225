/**
 * A property of the core's outbound queue (`src/core/queue.ts`) over arbitrary limits, payloads and
 * operations (push, shift, drain, unshift, expire, the clock stepping either way): it matches a
 * plain-array model, the limits hold after a push, and every message pushed has exactly one fate.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expireQueued, oldestQueued, Queue, type QueuedMessage } from '../../src/core/queue.js';
import type { Data } from '../../src/data.js';
import { type PayloadKind, utf8String } from '../helpers/payloads.js';

function payload(kind: PayloadKind, size: number, seed: number): Data {
  if (kind === 'bytes') return new Uint8Array(size);
  if (kind === 'arraybuffer') return new ArrayBuffer(size);
  return utf8String(size, seed);
}

/** Size computed independently of `byteLengthOf`. */
function oracleSize(data: Data): number {
  if (typeof data === 'string') return Buffer.byteLength(data, 'utf8');
  return (data as ArrayBuffer).byteLength;
}

type Op =
  | { readonly op: 'push'; readonly kind: PayloadKind; readonly size: number }
  | { readonly op: 'shift' }
  | { readonly op: 'drain' }
  | { readonly op: 'unshift' }
  | { readonly op: 'advance'; readonly by: number }
  | { readonly op: 'expire' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('push' as const),
      kind: fc.constantFrom<PayloadKind>('string', 'bytes', 'arraybuffer'),
      size: fc.nat({ max: 14 }),
    }),
  },
  { weight: 3, arbitrary: fc.constant({ op: 'shift' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'drain' as const }) },
  { weight: 2, arbitrary: fc.constant({ op: 'unshift' as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('advance' as const), by: fc.integer({ min: -3, max: 8 }) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'expire' as const }) },
);

const optionsArb = fc.record({
  maxMessages: fc.nat({ max: 6 }),
  maxBytes: fc.oneof(fc.nat({ max: 40 }), fc.constant(Number.POSITIVE_INFINITY)),
  ttl: fc.constantFrom(Number.POSITIVE_INFINITY, 4, 10),
});

interface Entry {
  readonly id: number;
  readonly data: Data;
  readonly size: number;
  readonly at: number;
}

type Fate = 'queued' | 'taken' | 'evicted' | 'refused' | 'expired';

describe('Queue properties', () => {
  it('matches a plain-array model; limits hold after push; nothing vanishes; order is kept', () => {
    fc.assert(
      fc.property(optionsArb, fc.array(opArb, { maxLength: 80 }), (options, ops) => {
        const { maxMessages, maxBytes, ttl } = options;
        const q = new Queue(maxMessages, maxBytes);
        const model: Entry[] = [];
        const fate = new Map<number, Fate>();
        /** Messages shifted out and not yet put back, most recent last. */
        const taken: { message: QueuedMessage; id: number }[] = [];
        let now = 1_000;
        let nextId = 0;

        const within = () => q.length <= maxMessages && q.bytes <= maxBytes;
        const leave = (id: number, to: Fate) => {
          expect(fate.get(id)).toBe('queued'); // leaves at most once
          fate.set(id, to);
        };
        /** The queue's output must be the model's, message for message (the very same objects). */
        const sameData = (data: readonly Data[], entries: readonly Entry[]) => {
          expect(data.length).toBe(entries.length);
          data.forEach((d, i) => {
            expect(d).toBe((entries[i] as Entry).data);
          });
        };
        const modelBytes = () => model.reduce((sum, e) => sum + e.size, 0);

        for (const step of ops) {
          switch (step.op) {
            case 'push': {
              const id = nextId++;
              const data = payload(step.kind, step.size, id);
              const size = oracleSize(data);
              expect(size).toBe(step.size);
              fate.set(id, 'queued');
              const withinBefore = within();
              const fits = () => model.length + 1 <= maxMessages && modelBytes() + size <= maxBytes;
              const fitsAlone = maxMessages >= 1 && size <= maxBytes;
              expect(q.fits_(size)).toBe(fits());

              // Expected outcome from the spec, on the model.
              const expectedEvicted: Entry[] = [];
              if (fitsAlone) while (!fits()) expectedEvicted.push(model.shift() as Entry);

              const result = q.push(data, now);
              if (!fitsAlone) {
                expect(result).toBeUndefined();
                fate.set(id, 'refused');
              } else {
                expect(result).toBeDefined();
                sameData(result as Data[], expectedEvicted);
                for (const e of expectedEvicted) leave(e.id, 'evicted');
                model.push({ id, data, size, at: now });
              }
              // The limits hold after a push, unless an unshift broke them and the push could not fix it.
              if (withinBefore || result !== undefined) {
                expect(q.length).toBeLessThanOrEqual(maxMessages);
                expect(q.bytes).toBeLessThanOrEqual(maxBytes);
              }
              break;
            }
            case 'shift': {
              const message = q.shift();
              const entry = model.shift();
              if (entry === undefined) expect(message).toBeUndefined();
              else {
                expect(message?.data).toBe(entry.data);
                expect(message?.bytes).toBe(entry.size);
                expect(message?.at).toBe(entry.at);
                leave(entry.id, 'taken');
                taken.push({ message: message as QueuedMessage, id: entry.id });
              }
              break;
            }
            case 'drain': {
              const all = q.drain_();
              const entries = model.splice(0);
              sameData(all, entries);
              for (const e of entries) leave(e.id, 'taken');
              taken.length = 0; // drained messages are sent, not put back
              break;
            }
            case 'unshift': {
              const last = taken.pop();
              if (last === undefined) break;
              q.unshift(last.message);
              const { data, bytes, at } = last.message;
              model.unshift({ id: last.id, data, size: bytes, at });
              expect(fate.get(last.id)).toBe('taken');
              fate.set(last.id, 'queued');
              break;
            }
            case 'advance':
              now += step.by; // may step back: a wall clock can be adjusted
              break;
            case 'expire': {
              // What the bufferPolicy feature asks: everything that waited at least ttl.
              const expired = expireQueued(q, now - ttl);
              const stale = model.filter((e) => now - e.at >= ttl);
              sameData(expired, stale);
              for (const e of stale) leave(e.id, 'expired');
              model.splice(0, model.length, ...model.filter((e) => now - e.at < ttl));
              break;
            }
          }

          // After every step: same length, exact bytes, same front, same oldest stamp.
          expect(q.length).toBe(model.length);
          expect(q.bytes).toBe(modelBytes());
          expect(q.peek_()?.data).toBe(model[0]?.data);
          expect(q.peek_()?.at).toBe(model[0]?.at);
          expect(oldestQueued(q)).toBe(model.length === 0 ? undefined : Math.min(...model.map((e) => e.at)));
          expect([...fate.values()].filter((f) => f === 'queued').length).toBe(model.length);
        }

        // Finally drain: everything still queued comes out in model order, and every message
        // pushed has exactly one fate.
        const rest = q.drain_();
        sameData(rest, model);
        for (const e of model) leave(e.id, 'taken');
        expect(q.bytes).toBe(0);
        expect(q.length).toBe(0);
        expect(fate.size).toBe(nextId);
        expect([...fate.values()].every((f) => f !== 'queued')).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});
