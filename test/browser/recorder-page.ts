/**
 * The page the browser tests drive (test/browser/pages/socket/: its recorder.js exposes
 * `window.rsTest`), as seen from the tests: its types, and the helpers that run code in it and
 * wait on it. Shared by the suites that drive that page (socket, resume, bfcache, close frame).
 */
import { join } from 'node:path';
import type * as Lib from '../../src/index.js';
import type { ResilientSocket } from '../../src/index.js';
import { pageIsProduction } from '../helpers/mode.js';
import { pageObject } from './harness.js';

export { unchangedFor } from './harness.js';

/** The test page's directory, for the static server. */
export const PAGE_DIR = join(import.meta.dirname, 'pages', 'socket');

/** The page loads the production flavour (dist/index.js, what an app ships): short messages. */
export const PRODUCTION = pageIsProduction(PAGE_DIR);

/** What `send()` is given, described as JSON: text, or bytes sent as one of three binary shapes. */
export type Spec = string | { readonly bytes: number[]; readonly as: 'arraybuffer' | 'uint8array' | 'subarray' };

/** A message (or dropped message) as the page describes it. */
export type DataDescription =
  | { kind: 'text'; text: string }
  | { kind: 'arraybuffer' | 'view'; bytes: number[] }
  | { kind: string };

/** One log line: an event of the socket (or a note of the test), with the socket's state then. */
export interface Entry {
  readonly t: number; // performance.now() in the page
  readonly wall: number; // Date.now() in the page (the library's clock)
  readonly event: string;
  readonly state: string;
  readonly [detail: string]: unknown;
}

export interface Snapshot {
  readonly state: string;
  readonly readyState: number;
  readonly protocol: string;
  readonly binaryType: string | undefined;
  readonly bufferedCount: number;
  readonly attempt: number;
  /** `socket.stats`, with the error as its code (it crossed the page boundary as JSON). */
  readonly stats: Omit<Lib.SocketStats, 'lastError'> & { readonly lastError: string | undefined };
  readonly now: number;
}

/** `window.rsTest`. */
export interface RsTest {
  readonly exports: string[];
  /** The library module itself, to build options (e.g. a backoff policy) in the page. */
  readonly lib: typeof Lib;
  create(name: string, url: string, options?: Record<string, unknown>): Snapshot;
  socket(name: string): ResilientSocket;
  note(name: string, event: string, detail?: Record<string, unknown>): void;
  log(name: string, event?: string): Entry[];
  count(name: string, event: string): number;
  snapshot(name: string): Snapshot;
  inState(name: string, state: string, timeoutMs: number): Promise<void>;
  send(name: string, specs: Spec[]): string[];
  /** Overrides `document.visibilityState` and dispatches `visibilitychange`. */
  setVisibility(state: 'visible' | 'hidden'): void;
  /** Dispatches a `pageshow` PageTransitionEvent. */
  pageshow(persisted: boolean): void;
  dump(): unknown;
  closeAll(): Record<string, string>;
}

/**
 * `run(page, fn, arg)` runs `fn(window.rsTest, arg)` in the page and returns its (awaited,
 * JSON-serialisable) result; `until(page, what, timeout, fn, arg)` waits (polling every 20 ms, at
 * most `timeout` ms) until it is truthy. `fn` is sent as source text: it must not use anything from
 * the test's module, only its arguments.
 */
export const { run, until } = pageObject<RsTest>('rsTest');
