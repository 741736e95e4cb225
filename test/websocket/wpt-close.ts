/**
 * The web-platform-tests `websockets/` scenarios of closing: close() and its arguments, closing
 * while connecting, and the server closing (./wpt.ts gathers every group; its header says how they
 * run).
 */
import { IAE, NOT_RUN, RECONNECTS, type Scenario } from './wpt-scenario.js';

export const CLOSE_SCENARIOS: readonly Scenario[] = [
  {
    title:
      'close(): CLOSING at once, then close 1005 with no reason, clean, CLOSED inside it; no error; wasClean read-only',
    wpt: [
      'Secure-Close-1005.any.js',
      'Secure-Close-1005-verify-code.any.js',
      'Secure-Close-readyState-Closing.any.js',
      'Secure-Close-readyState-Closed.any.js',
      'interfaces/WebSocket/readyState/006.html, 007.html, 008.html',
      'interfaces/WebSocket/close/close-basic.html',
    ],
    run: async (t, WS, { url }) => {
      const ws = t.make(WS, `${url}/echo`);
      const log = t.record(ws);
      let readOnly: unknown;
      ws.addEventListener('close', (event) => {
        try {
          (event as { wasClean: boolean }).wasClean = false;
        } catch {
          // a getter without a setter, in strict code
        }
        readOnly = (event as CloseEvent).wasClean;
      });
      await t.next(ws, 'open');
      ws.close();
      const closing = ws.readyState;
      await t.next(ws, 'close');
      await t.sleep(50);
      return { closing, readOnly, events: t.brief(log) };
    },
    expected: { closing: 2, readOnly: true, events: ['open@1', 'close@3 1005 "" clean'] },
  },
  {
    title: 'close(code, reason): the close event has the code and reason the server echoed, a lone surrogate as U+FFFD',
    wpt: [
      'Close-undefined.any.js',
      'Close-1000.any.js',
      'Close-1000-reason.any.js',
      'Secure-Close-1000-verify-code.any.js',
      'Secure-Close-3000-verify-code.any.js',
      'Secure-Close-3000-reason.any.js',
      'Secure-Close-4999-reason.any.js',
      'Close-reason-unpaired-surrogates.any.js',
    ],
    run: async (t, WS, { url }) => {
      const rows: unknown[] = [];
      const calls = [
        [undefined],
        [1000],
        [1000, 'Clean Close with code - 1000'],
        [3000, 'Clean Close'],
        [4999, 'Clean Close'],
        [1000, '\uD807'],
      ];
      for (const args of calls) {
        const ws = t.make(WS, `${url}/echo`);
        await t.next(ws, 'open');
        (ws.close as (...a: unknown[]) => void)(...args);
        const event = (await t.next(ws, 'close')) as CloseEvent;
        rows.push([event.code, event.reason, event.wasClean, ws.readyState]);
      }
      return rows;
    },
    expected: [
      [1005, '', true, 3],
      [1000, '', true, 3],
      [1000, 'Clean Close with code - 1000', true, 3],
      [3000, 'Clean Close', true, 3],
      [4999, 'Clean Close', true, 3],
      [1000, '\uFFFD', true, 3],
    ],
  },
  {
    title: 'close() with a bad code or reason throws, while CONNECTING and while OPEN, and changes nothing',
    wpt: [
      'close-invalid.any.js',
      'Secure-Close-2999-reason.any.js',
      'Close-Reason-124Bytes.any.js',
      'Secure-Close-onlyReason.any.js',
    ],
    run: async (t, WS, { url }) => {
      const bad = [
        [0],
        [500],
        [Number.NaN],
        ['string'],
        [null],
        [0x10000 + 1000],
        [2999, 'Close not in range 3000-4999'],
        [1000, 'x'.repeat(124)],
        ['Close with only reason'],
      ];
      const names = (ws: WebSocket) =>
        bad.map((args) => {
          const outcome = t.outcome(() => (ws.close as (...a: unknown[]) => void)(...args));
          return outcome.ok ? 'ok' : outcome.name;
        });
      const ws = t.make(WS, `${url}/echo`);
      const log = t.record(ws);
      const connecting = [names(ws), ws.readyState];
      await t.next(ws, 'open');
      const open = [names(ws), ws.readyState];
      ws.close();
      await t.next(ws, 'close');
      return { connecting, open, events: t.brief(log) };
    },
    expected: {
      connecting: [[IAE, IAE, IAE, IAE, IAE, IAE, IAE, 'SyntaxError', IAE], 0],
      open: [[IAE, IAE, IAE, IAE, IAE, IAE, IAE, 'SyntaxError', IAE], 1],
      events: ['open@1', 'close@3 1005 "" clean'],
    },
    ws: {
      expected: NOT_RUN,
      why: "ws checks close()'s arguments its own way (TypeError, SyntaxError), and not while CONNECTING: it closes",
    },
  },
  {
    title: 'close() several times, and in onclose: one close event; CLOSING after the calls, CLOSED inside onclose',
    wpt: [
      'interfaces/WebSocket/close/close-multiple.html',
      'interfaces/WebSocket/close/close-nested.html',
      'interfaces/WebSocket/close/005.html',
    ],
    run: async (t, WS, { url }) => {
      const rows: unknown[] = [];
      for (const when of ['connecting', 'open']) {
        const ws = t.make(WS, `${url}/echo`);
        const log = t.record(ws);
        const inClose: number[] = [];
        ws.onclose = () => {
          inClose.push(ws.readyState);
          ws.close();
          inClose.push(ws.readyState);
        };
        if (when === 'open') await t.next(ws, 'open');
        ws.close();
        ws.close();
        ws.close();
        const closing = ws.readyState;
        await t.next(ws, 'close');
        await t.sleep(100);
        rows.push({ when, closing, inClose, events: t.brief(log) });
      }
      return rows;
    },
    expected: [
      { when: 'connecting', closing: 2, inClose: [3, 3], events: ['error@3', 'close@3 1006 "" unclean'] },
      { when: 'open', closing: 2, inClose: [3, 3], events: ['open@1', 'close@3 1005 "" clean'] },
    ],
    ws: {
      expected: [
        { when: 'connecting', closing: 2, inClose: [3, 3], events: ['error@2', 'close@3 1006 "" unclean'] },
        { when: 'open', closing: 2, inClose: [3, 3], events: ['open@1', 'close@3 1005 "" clean'] },
      ],
      why: 'ws is still CLOSING in the error of an attempt close() ended',
    },
  },
  {
    title: 'close() while the opening handshake is under way: CLOSING, then error and close (1006, not clean); no open',
    wpt: ['interfaces/WebSocket/close/close-connecting.html', 'interfaces/WebSocket/close/006.html'],
    run: async (t, WS, { url }) => {
      const ws = t.make(WS, `${url}/slow`);
      const log = t.record(ws);
      await t.sleep(300);
      const before = ws.readyState;
      ws.close();
      const after = ws.readyState;
      await t.next(ws, 'close');
      await t.sleep(100);
      return { before, after, events: t.brief(log) };
    },
    expected: { before: 0, after: 2, events: ['error@3', 'close@3 1006 "" unclean'] },
    ws: {
      expected: { before: 0, after: 2, events: ['error@2', 'close@3 1006 "" unclean'] },
      why: 'ws is still CLOSING in the error of an attempt close() ended',
    },
  },
  {
    title: 'the server closes: the client answers, close is clean',
    wpt: [
      'Secure-Close-server-initiated-close.any.js',
      'interfaces/CloseEvent/clean-close.html',
      'interfaces/CloseEvent/004.html',
    ],
    run: async (t, WS, { url }) => {
      const ws = t.make(WS, `${url}/echo`);
      const log = t.record(ws);
      await t.next(ws, 'open');
      ws.send('Goodbye');
      await t.next(ws, 'close');
      ws.close();
      return t.brief(log);
    },
    expected: ['open@1', 'message@1 "Goodbye"', 'close@3 1005 "" clean'],
    ours: { expected: ['open@1', 'message@1 "Goodbye"', 'close@0 1005 "" clean'], why: RECONNECTS },
  },
];
