/**
 * The web-platform-tests `websockets/` scenarios of sending and receiving: send(), text and binary
 * echoes, bufferedAmount and binaryType (./wpt.ts gathers every group; its header says how they
 * run).
 */
import { AS_WS, type Scenario, UNCHECKED } from './wpt-scenario.js';

export const MESSAGE_SCENARIOS: readonly Scenario[] = [
  {
    title: 'send() returns undefined; after close() no error and no message, but bufferedAmount counts what it took',
    wpt: [
      'interfaces/WebSocket/send/005.html',
      'interfaces/WebSocket/send/007.html',
      'interfaces/WebSocket/send/008.html',
    ],
    run: async (t, WS, { url }) => {
      const ws = t.make(WS, `${url}/echo`);
      const log = t.record(ws);
      await t.next(ws, 'open');
      const returned = [ws.send('test')];
      await t.next(ws, 'message');
      ws.close();
      returned.push(ws.send('after close()'));
      await t.next(ws, 'close');
      returned.push(ws.send('in CLOSED'));
      await t.sleep(100);
      return { returned: returned.map(String), events: t.brief(log), buffered: ws.bufferedAmount };
    },
    expected: {
      returned: ['undefined', 'undefined', 'undefined'],
      events: ['open@1', 'message@1 "test"', 'close@3 1005 "" clean'],
      // The WebSocket standard's send(): every call that does not throw adds to bufferedAmount.
      buffered: 'after close()'.length + 'in CLOSED'.length,
    },
  },
  {
    title:
      'text: echoed as sent (empty, null as "null", unicode, lone surrogates as U+FFFD, every payload length field)',
    wpt: [
      'Send-data.any.js',
      'Send-0byte-data.any.js',
      'Send-null.any.js',
      'Send-paired-surrogates.any.js',
      'Send-unicode-data.any.js',
      'Send-Unpaired-Surrogates.any.js',
      'interfaces/WebSocket/send/006.html',
      'Send-65K-data.any.js',
      'extended-payload-length.any.js',
    ],
    run: async (t, WS, { url }) => {
      const ws = t.make(WS, `${url}/echo`);
      await t.next(ws, 'open');
      const inputs = [
        'Message to send',
        '',
        null,
        '\uD801\uDC7E',
        '¥¥¥¥¥¥',
        '\uD807',
        'a\uDC00xb\uD800xc\uDC00\uD800x',
        'a'.repeat(125),
        'a'.repeat(126),
        'x'.repeat(65_000),
        'a'.repeat(0xffff),
        'a'.repeat(0x10000),
      ];
      const rows: unknown[] = [];
      for (const data of inputs) {
        ws.send(data as string);
        const { data: echoed } = (await t.next(ws, 'message')) as MessageEvent<string>;
        rows.push(echoed.length <= 40 ? echoed : `${echoed[0]}×${echoed.length}`);
      }
      ws.close();
      return rows;
    },
    expected: [
      'Message to send',
      '',
      'null',
      '\uD801\uDC7E',
      '¥¥¥¥¥¥',
      '\uFFFD',
      'a\uFFFDxb\uFFFDxc\uFFFD\uFFFDx',
      'a×125',
      'a×126',
      'x×65000',
      'a×65535',
      'a×65536',
    ],
    ws: { expected: UNCHECKED, why: 'ws sends null as an empty binary message (it converts no argument to a string)' },
  },
  {
    title: 'bufferedAmount: 0 at first, the UTF-8 or binary size of what send() took, back to 0 once echoed',
    wpt: [
      'interfaces/WebSocket/bufferedAmount/001.html',
      'interfaces/WebSocket/bufferedAmount/bufferedAmount-getting.html',
      'interfaces/WebSocket/bufferedAmount/bufferedAmount-unicode.html',
      'interfaces/WebSocket/bufferedAmount/bufferedAmount-large.html',
      'interfaces/WebSocket/bufferedAmount/bufferedAmount-arraybuffer.html',
      'interfaces/WebSocket/bufferedAmount/bufferedAmount-blob.html',
      'Send-data.any.js',
      'Send-0byte-data.any.js',
    ],
    run: async (t, WS, { url }) => {
      const ws = t.make(WS, `${url}/echo`);
      const initial = ws.bufferedAmount;
      await t.next(ws, 'open');
      const growing: number[] = [];
      for (const data of ['x', '\u00E5', '\u5336', '\uD801\uDC7E']) {
        ws.send(data);
        growing.push(ws.bufferedAmount);
      }
      const draining: boolean[] = [];
      for (const below of [2 + 3 + 4 + 1, 3 + 4 + 1, 4 + 1]) {
        await t.next(ws, 'message');
        draining.push(ws.bufferedAmount < below);
      }
      await t.next(ws, 'message');
      const drained = ws.bufferedAmount;
      const sizes: number[] = [];
      for (const data of ['', 'Message to send', '¥¥¥¥¥¥', 'x'.repeat(65_000), new ArrayBuffer(10)]) {
        ws.send(data);
        sizes.push(ws.bufferedAmount);
        await t.next(ws, 'message');
      }
      ws.close();
      return { initial, growing, draining, drained, sizes };
    },
    expected: {
      initial: 0,
      growing: [1, 3, 6, 10],
      draining: [true, true, true],
      drained: 0,
      sizes: [0, 15, 12, 65_000, 10],
    },
    ws: {
      expected: UNCHECKED,
      why: 'ws counts what its TCP socket has not written yet, frame headers included (0 once written), not what send() took',
    },
    oursInNode: {
      expected: AS_WS,
      why: "ours adds the queue (empty while open) to the underlying socket's own figure",
    },
  },
  {
    title:
      'binary: binaryType "blob" by default, a wrong value ignored; ArrayBuffer, views (with an offset) and Blobs echoed',
    wpt: [
      'Create-Secure-valid-url-binaryType-blob.any.js',
      'binaryType-wrong-value.any.js',
      'Send-binary-arraybuffer.any.js',
      'Send-binary-65K-arraybuffer.any.js',
      'Send-binary-arraybufferview-int16-offset.any.js',
      'Send-binary-arraybufferview-int8.any.js',
      'Send-binary-blob.any.js',
      'interfaces/WebSocket/bufferedAmount/bufferedAmount-blob.html',
    ],
    run: async (t, WS, { url }) => {
      const ws = t.make(WS, `${url}/echo`);
      const log = t.record(ws, ['close']);
      const types = [ws.binaryType];
      await t.next(ws, 'open');
      ws.binaryType = 'notBlobOrArrayBuffer' as BinaryType;
      types.push(ws.binaryType);
      const echo = async (data: unknown, binaryType: BinaryType) => {
        ws.binaryType = binaryType;
        ws.send(data as ArrayBuffer);
        const { data: echoed } = (await t.next(ws, 'message')) as MessageEvent;
        const bytes = echoed instanceof ArrayBuffer ? echoed : await (echoed as Blob).arrayBuffer();
        const kind = echoed instanceof ArrayBuffer ? 'ArrayBuffer' : echoed instanceof Blob ? 'Blob' : typeof echoed;
        return [kind, bytes.byteLength, Array.from(new Int16Array(bytes.slice(0, 6)))];
      };
      const int16 = new Int16Array(new ArrayBuffer(8), 2);
      for (let i = 0; i < int16.length; i++) int16[i] = i + 1;
      const rows = [
        await echo(new ArrayBuffer(15), 'arraybuffer'),
        await echo(new ArrayBuffer(65_000), 'arraybuffer'),
        await echo(int16, 'arraybuffer'),
        await echo(new Int8Array([1, 0, 2, 0, 3, 0, 4]), 'arraybuffer'),
        await echo(new Blob([new Uint8Array(65_000)]), 'blob'),
        await echo(new ArrayBuffer(10), 'blob'),
      ];
      ws.close();
      await t.next(ws, 'close');
      return { types, rows, events: t.brief(log) };
    },
    expected: {
      types: ['blob', 'blob'],
      rows: [
        ['ArrayBuffer', 15, [0, 0, 0]],
        ['ArrayBuffer', 65_000, [0, 0, 0]],
        ['ArrayBuffer', 6, [1, 2, 3]],
        ['ArrayBuffer', 7, [1, 2, 3]],
        ['Blob', 65_000, [0, 0, 0]],
        ['Blob', 10, [0, 0, 0]],
      ],
      events: ['close@3 1005 "" clean'],
    },
    ws: {
      expected: {
        types: ['nodebuffer', 'nodebuffer'],
        rows: [
          ['ArrayBuffer', 15, [0, 0, 0]],
          ['ArrayBuffer', 65_000, [0, 0, 0]],
          ['ArrayBuffer', 6, [1, 2, 3]],
          ['ArrayBuffer', 7, [1, 2, 3]],
          ['Blob', 65_000, [0, 0, 0]],
          ['Blob', 10, [0, 0, 0]],
        ],
        events: ['close@3 1005 "" clean'],
      },
      why: "ws's default binaryType is Node's own 'nodebuffer'",
    },
  },
];
