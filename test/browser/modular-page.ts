/**
 * The modular build's test page (test/browser/pages/modular/), as seen from the tests: its types,
 * the helpers that run code in it and wait on it, and what the tests read of dist/.
 *
 * The page loads `resilient-socket/modular`, mapped to /dist/modular.js (the production flavour,
 * what an app ships) by an import map (the full entry, /dist/index.js, is not mapped at all), and
 * exposes `window.rsTest`, a recorder that creates named `BaseSocket`s with the features a test
 * builds in the page (`t.lib.heartbeat(…)`, …) and logs every event they emit with its time.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../examples/lib/static-server.js';
import type * as Modular from '../../src/modular.js';
import { pageIsProduction } from '../helpers/mode.js';
import { pageObject } from './harness.js';
import type { Entry } from './recorder-page.js';

export const PAGE_DIR = join(import.meta.dirname, 'pages', 'modular');
export const DIST = join(REPO_ROOT, 'dist');
/** The page loads the production flavour: short messages, with the same classes and codes. */
export const PRODUCTION = pageIsProduction(PAGE_DIR);

/** What `send()` is given, described as JSON: text, or bytes sent as an ArrayBuffer or a Uint8Array. */
export type Spec = string | { readonly bytes: number[]; readonly as: 'arraybuffer' | 'uint8array' };

/** What a call threw, as the page describes it. */
export interface Thrown {
  readonly threw: boolean;
  readonly name?: string;
  readonly isTypeError?: boolean;
  readonly code?: string;
  readonly message?: string;
}

export interface Snapshot {
  readonly state: string;
  readonly readyState: number;
  readonly binaryType: string | undefined;
  readonly bufferedCount: number;
  readonly attempt: number;
  /** `socket.stats` (its error as its code), or undefined when reading it threw (no stats() feature). */
  readonly stats: (Omit<Modular.SocketStats, 'lastError'> & { readonly lastError: string | undefined }) | undefined;
  readonly now: number;
}

/** `window.rsTest` of pages/modular/recorder.js. */
export interface RsTest {
  readonly exports: string[];
  /** `resilient-socket/modular` itself, to build features and options in the page. */
  readonly lib: typeof Modular;
  attempt(call: () => unknown): Thrown;
  create(name: string, url: string, options?: Modular.BaseSocketOptions): Snapshot;
  /** Starts `for await (const data of socket)`, logging `iter` per value and `iter-end` at its end. */
  iterate(name: string): void;
  socket(name: string): Modular.BaseSocket;
  note(name: string, event: string, detail?: Record<string, unknown>): void;
  log(name: string, event?: string): Entry[];
  count(name: string, event: string): number;
  snapshot(name: string): Snapshot;
  inState(name: string, state: string, timeoutMs: number): Promise<void>;
  send(name: string, specs: Spec[]): string[];
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

/** The files of dist/ that `entry` loads, itself included: its static imports, followed (from disk). */
export function staticImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(DIST, file), 'utf8');
    for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*)["']\.\/([\w.-]+\.js)["']/g)) visit(match[1] as string);
  };
  visit(entry);
  return seen;
}

/**
 * The file of dist/ that defines `ResilientSocket`: dist/index.js itself, or the chunk it re-exports
 * it from (when another entry of the build shares it).
 */
export function fullSocketChunk(): string {
  const index = readFileSync(join(DIST, 'index.js'), 'utf8');
  if (/\b(?:var ResilientSocket = class|class ResilientSocket)\b/.test(index)) return 'index.js';
  // `export { … } from './chunk.js'`, or `import { … } from './chunk.js'` and a later `export { … }`.
  const found = /(?:export|import)\s*\{[^}]*\bResilientSocket\b[^}]*\}\s*from\s*["']\.\/([\w.-]+\.js)["']/.exec(index);
  if (!found?.[1]) throw new Error(`dist/index.js neither defines ResilientSocket nor re-exports it:\n${index}`);
  return found[1];
}

export const texts = (entries: Entry[]) =>
  entries.map((e) => (e as unknown as { text?: string; kind: string }).text ?? `<${e.kind}>`);
export const names = (entries: Entry[]) =>
  entries.map((e) => (e.event === 'state' ? `${e.previous}→${e.current}` : e.event));

/** What the modular entry exports (its values; the rest are types). */
export const MODULAR_EXPORTS = [
  'BaseSocket',
  'abortSignal',
  'asyncIteration',
  'bufferPolicy',
  'delivery',
  'handshake',
  'heartbeat',
  'indexedDbStore',
  'jsonCodec',
  'memoryStore',
  'providers',
  'resume',
  'stats',
  'unref',
  'upgradeRejection',
];
