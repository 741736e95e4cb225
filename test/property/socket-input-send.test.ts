/**
 * Arbitrary data and options thrown at `send()` in every state, mixed with time passing and server
 * closes, on mock-socket under fake timers. Each call returns sent / buffered / dropped, or throws a
 * TypeError naming the bad argument (ERR_RS_BUFFER_OVERFLOW where the docs list it); the counts of
 * sent, queued, flushed and dropped messages always balance, and the socket closes cleanly.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, isResilientSocketError } from '../../src/errors.js';
import { bufferPolicy } from '../../src/node.js';
import { advance, MOCK_DELAY, thrown } from '../resilient-socket/helpers.js';
import {
  anyValue,
  attempt,
  checkKnownKeys,
  expectNamed,
  expectOptionError,
  isOptionsObject,
  Problems,
  show,
} from './arbitraries.js';
import {
  ALL_STATES,
  dataArb,
  expectAllRsErrors,
  expectClosesCleanly,
  isData,
  NUM_RUNS,
  run,
  setUpSocketInput,
  socketIn,
  stateArb,
} from './socket-helpers.js';

setUpSocketInput();

const sendOptionsArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(undefined),
  fc.record({ buffer: fc.boolean() }, { requiredKeys: [] }),
  fc.record({ buffer: anyValue }),
  anyValue,
);

type Op =
  | { kind: 'send'; data: unknown; options: unknown }
  | { kind: 'advance'; ms: number }
  | { kind: 'server-close'; code: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('send' as const),
      data: fc.oneof({ weight: 3, arbitrary: dataArb }, { weight: 1, arbitrary: anyValue }),
      options: sendOptionsArb,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 40 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('server-close' as const), code: fc.constantFrom(1000, 1001, 4000, 1011) }),
  },
);

/** The queue's limits (`buffer`) and, when given, the policies (`bufferPolicy: bufferPolicy(policies)`). */
const bufferArb = fc.record({
  limits: fc.record(
    {
      maxMessages: fc.integer({ min: 0, max: 4 }),
      maxBytes: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constant(Number.POSITIVE_INFINITY)),
    },
    { requiredKeys: [] },
  ),
  policies: fc.option(
    fc.record(
      {
        overflow: fc.constantFrom('drop-oldest' as const, 'drop-newest' as const, 'error' as const),
        ttl: fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.integer({ min: 1, max: 60 })),
      },
      { requiredKeys: [] },
    ),
    { nil: undefined },
  ),
});

describe('send(data, options) under arbitrary input, in every state', () => {
  it('returns sent/buffered/dropped or throws a TypeError naming the argument; the books always balance', async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, bufferArb, fc.array(opArb, { maxLength: 12 }), (state, { limits, policies }, ops) =>
        run(async () => {
          fc.pre(!ops.some((op) => op.kind === 'send' && isOptionsObject(op.options) && op.options.buffer === null));
          const { server, socket, errors } = await socketIn(state, {
            buffer: limits,
            ...(policies === undefined ? {} : { bufferPolicy: bufferPolicy(policies) }),
          });
          let dropEvents = 0;
          socket.on('drop', ({ messages }) => {
            dropEvents += messages.length;
          });
          const out0 = socket.stats.messagesOut;
          const dropped0 = socket.stats.dropped;
          const results = { sent: 0, buffered: 0, dropped: 0 };
          const maxMessages = limits.maxMessages ?? 1000;

          const expectBooksBalance = (): void => {
            const flushed = socket.stats.messagesOut - out0 - results.sent;
            const evicted = dropEvents - results.dropped;
            expect(socket.bufferedCount, `results ${JSON.stringify(results)}, drops ${dropEvents}`).toBe(
              results.buffered - evicted - flushed,
            );
            expect(socket.stats.dropped - dropped0).toBe(dropEvents);
            expect(socket.bufferedCount).toBeLessThanOrEqual(maxMessages);
          };

          for (const op of ops) {
            if (op.kind === 'advance') {
              await advance(op.ms);
            } else if (op.kind === 'server-close') {
              if (socket.state === 'open') {
                server.closeLast(op.code, 'bye');
                await advance(MOCK_DELAY);
              }
            } else {
              const before = { state: socket.state, count: socket.bufferedCount };
              const problems = new Problems();
              if (!isData(op.data)) problems.add('data', 'type');
              if (op.options !== undefined && !isOptionsObject(op.options)) problems.add('send options', 'type');
              const wantsBuffer = isOptionsObject(op.options) ? op.options.buffer : undefined;
              if (isOptionsObject(op.options) && wantsBuffer !== undefined && typeof wantsBuffer !== 'boolean') {
                problems.add('buffer', 'type');
              }
              if (isOptionsObject(op.options)) checkKnownKeys(problems, '', op.options, ['buffer']);
              const sent = attempt(() => socket.send(op.data as never, op.options as never));
              if (!sent.ok) {
                if (problems.size === 0 && isResilientSocketError(sent.error)) {
                  // Documented: the buffer is full and overflow is 'error'.
                  expect(sent.error.code).toBe(ErrorCodes.BUFFER_OVERFLOW);
                  expect(policies?.overflow).toBe('error');
                } else {
                  expect(problems.size, `send threw ${show(sent.error)} for valid input`).toBeGreaterThan(0);
                  expectOptionError(sent.error, problems);
                }
                expect(socket.state).toBe(before.state);
                expect(socket.bufferedCount).toBe(before.count);
              } else {
                expect(problems.size, `send accepted ${problems}`).toBe(0);
                const result = sent.value;
                expect(['sent', 'buffered', 'dropped']).toContain(result);
                results[result] += 1;
                if (before.state === 'closing' || before.state === 'closed') expect(result).toBe('dropped');
                else if (before.state === 'open' && before.count === 0) expect(result).toBe('sent');
                else if (wantsBuffer === false) expect(result).toBe('dropped');
                else expect(result).not.toBe('sent');
              }
            }
            expectBooksBalance();
            expect(ALL_STATES).toContain(socket.state);
          }
          expectAllRsErrors(errors);
          await expectClosesCleanly(socket);
          results.dropped += 1; // expectClosesCleanly's own send after close
          expectBooksBalance();
        }),
      ),
      { numRuns: NUM_RUNS },
    );
  });

  // Regression: was send() reads its option as `options?.buffer ?? true`, so `{ buffer: null }` silently means
  // `true` while every other non-boolean throws a TypeError naming `buffer`. The package's own rule
  // (src/validation.ts withDefault(): "Only `undefined` means use the default: `null` is passed
  // through so that validation rejects it as a wrong type instead of silently defaulting (which
  // `??` would do)") says null must be rejected. Minor: an inconsistency, not a crash.
  it('send(data, { buffer: null }) throws a TypeError naming `buffer`', async () => {
    const { socket } = await socketIn('connecting');
    const error = thrown(() => socket.send('x', { buffer: null } as never));
    expectNamed(error, TypeError, 'buffer');
  });
});
