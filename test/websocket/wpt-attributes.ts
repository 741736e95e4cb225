/**
 * The web-platform-tests `websockets/` scenarios of the attributes and constants, protocol and
 * extensions, and the constructor's third argument (./wpt.ts gathers every group; its header says
 * how they run).
 */
import type { Scenario } from './wpt-scenario.js';

export const ATTRIBUTE_SCENARIOS: readonly Scenario[] = [
  {
    title:
      'attributes: readyState and the constants are read-only (class, prototype, instance); url serialized; no URL',
    wpt: [
      'interfaces/WebSocket/readyState/001.html, 002.html',
      'interfaces/WebSocket/constants/001.html, 002.html',
      'interfaces/WebSocket/url/001.html, 003.html, 004.html',
      'Create-http-urls.any.js',
      'Create-valid-url.any.js',
      'Create-verify-url-set-non-default-port.any.js',
    ],
    run: (t, WS, { url }) => {
      const ws = t.make(WS, url) as unknown as Record<string, unknown>;
      const assign = (target: Record<string, unknown>, key: string) => {
        try {
          target[key] = 5;
        } catch {
          // read-only, in strict code
        }
      };
      const Class = WS as unknown as Record<string, unknown>;
      const names = ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED'];
      assign(ws, 'readyState');
      for (const name of names) {
        assign(Class, name);
        assign(WS.prototype as unknown as Record<string, unknown>, name);
        assign(ws, name);
      }
      delete ws.url;
      const http = t.make(WS, `${url.replace('ws:', 'http:')}/x?y`);
      return {
        readyState: ws.readyState,
        constants: names.map((name) => [
          Class[name],
          (WS.prototype as unknown as Record<string, unknown>)[name],
          ws[name],
        ]),
        url: [ws.url === `${url}/`, http.url === `${url}/x?y`],
        URL: ['URL' in ws, 'URL' in WS.prototype],
      };
    },
    expected: {
      readyState: 0,
      constants: [
        [0, 0, 0],
        [1, 1, 1],
        [2, 2, 2],
        [3, 3, 3],
      ],
      url: [true, true],
      URL: [false, false],
    },
  },
  {
    title:
      'the constants are WebIDL constants: own data properties of the class and its prototype, enumerable, neither writable nor configurable',
    wpt: ['interfaces/WebSocket/constants/001.html, 002.html', 'idlharness.any.js (the constants of WebSocket)'],
    run: (_t, WS) =>
      ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED'].map((name) =>
        [WS, WS.prototype].map((target) => {
          const own = Object.getOwnPropertyDescriptor(target, name);
          return own && [own.value, 'get' in own, own.enumerable, own.writable, own.configurable];
        }),
      ),
    expected: [0, 1, 2, 3].map((value) => [
      [value, false, true, false, false],
      [value, false, true, false, false],
    ]),
  },
  {
    title: 'protocol and extensions: "" until open; then the subprotocol the server chose and no extension',
    wpt: [
      'Create-valid-url-protocol.any.js',
      'Create-valid-url-protocol-setCorrectly.any.js (Create-Secure-…)',
      'Create-valid-url-array-protocols.any.js',
      'Create-valid-url-protocol-empty.any.js',
      'Create-Secure-extensions-empty.any.js',
    ],
    run: async (t, WS, { url }) => {
      const rows: unknown[] = [];
      for (const protocols of [undefined, 'echo', ['echo', 'chat'], []]) {
        const ws = protocols === undefined ? t.make(WS, `${url}/echo`) : t.make(WS, `${url}/echo`, protocols);
        const before = [ws.protocol, ws.extensions];
        await t.next(ws, 'open');
        rows.push([before, [ws.protocol, ws.extensions]]);
        ws.close();
      }
      return rows;
    },
    expected: [
      [
        ['', ''],
        ['', ''],
      ],
      [
        ['', ''],
        ['echo', ''],
      ],
      [
        ['', ''],
        ['echo', ''],
      ],
      [
        ['', ''],
        ['', ''],
      ],
    ],
  },
  {
    title: 'a third constructor argument',
    wpt: ['constructor.any.js'],
    run: (t, WS, { url }) => {
      const outcome = t.outcome(() => t.make(WS, `${url}/echo`, 'echo', 'Stray argument'));
      return outcome.ok ? 'ok' : outcome.name;
    },
    expected: 'ok',
    ours: {
      expected: 'TypeError',
      why: "the third argument is this class's options: anything but an object (or undefined) is a TypeError naming it",
    },
  },
];
