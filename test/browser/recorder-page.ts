/**
 * The page the browser tests drive (test/browser/pages/socket/: its recorder.js exposes
 * `window.rsTest`), as seen from the tests: its types, and the helpers that run code in it and
 * wait on it. Shared by socket.test.ts and resume.test.ts.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type * as Lib from '../../src/index.js';
import type { ResilientSocket } from '../../src/index.js';
import { pageIsProduction } from '../helpers/mode.js';

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
 * Runs `fn(window.rsTest, arg)` in the page and returns its (awaited, JSON-serialisable) result.
 * `fn` is sent as source text: it must not use anything from this file, only its arguments.
 */
export function run<R, A = undefined>(page: Page, fn: (t: RsTest, arg: A) => R | Promise<R>, arg?: A): Promise<R> {
  return page.evaluate(`(${fn.toString()})(window.rsTest, ${JSON.stringify(arg ?? null)})`) as Promise<R>;
}

/** Waits (polling every 20 ms, at most `timeout` ms) until `fn(window.rsTest, arg)` is truthy in the page. */
export async function until<A = undefined>(
  page: Page,
  what: string,
  timeout: number,
  fn: (t: RsTest, arg: A) => unknown,
  arg?: A,
): Promise<void> {
  const started = performance.now();
  try {
    await page.waitForFunction(`(${fn.toString()})(window.rsTest, ${JSON.stringify(arg ?? null)})`, undefined, {
      timeout,
      polling: 20,
    });
  } catch (error) {
    const dump = await run(page, (t) => t.dump()).catch(() => '(page gone)');
    throw new Error(
      `timed out after ${Math.round(performance.now() - started)} ms (limit ${timeout}) waiting for ${what}\n` +
        `page sockets: ${JSON.stringify(dump, null, 1)}`,
      { cause: error },
    );
  }
}

/** Asserts that `read()` keeps returning the same value for `ms` (failing as soon as it changes). */
export async function unchangedFor<T>(ms: number, what: string, read: () => Promise<T>): Promise<void> {
  const first = JSON.stringify(await read());
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = JSON.stringify(await read());
    if (now !== first) throw new Error(`${what} changed: ${first} → ${now}`);
  }
}
