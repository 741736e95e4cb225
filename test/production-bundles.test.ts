/**
 * What a production bundle leaves out: the development text of the backoff policies, the
 * WebSocket-shaped facade and the features (and what only builds it), and the
 * `CloseEvent` stand-in that only Node needs. Each import is bundled from the sources as an app
 * would for the browser (esbuild: ESM, minified, which defines `process.env.NODE_ENV` as
 * `'production'`), and again for development, where every text must still be there.
 *
 * esbuild reads the sources from disk, so the mode this suite runs in (`npm test` or
 * `npm run test:production`) does not reach the bundles: both runs check the same thing.
 */
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/**
 * The expression bundlers replace, as esbuild's `define` names it. Joined at run time: the
 * production test run rewrites that expression, written out, in this file too.
 */
const NODE_ENV = ['process', 'env', 'NODE_ENV'].join('.');

/** The bundle of `export { names } from './src/<from>'`: for the browser, minified, in `mode`. */
async function bundle(names: string, from: string, mode: 'production' | 'development'): Promise<string> {
  const result = await build({
    stdin: { contents: `export { ${names} } from './src/${from}';`, resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    external: ['react', 'vue'],
    write: false,
    logLevel: 'silent',
    ...(mode === 'development' ? { define: { [NODE_ENV]: '"development"' } } : {}),
  });
  return result.outputFiles[0]?.text ?? '';
}

/**
 * Each import, with texts of its own that only development builds carry (without backquotes: a
 * minified template literal escapes them).
 */
const IMPORTS: readonly [names: string, from: string, texts: readonly string[]][] = [
  [
    'truncatedBinaryExponential',
    'backoff/index.ts',
    [
      'Unknown option',
      'did you mean',
      'a finite number',
      'the first retry window',
      'to return a number in [0, 1]',
      'an array of length',
    ],
  ],
  [
    'retry, toRetryWait, fullJitter, constant, phasedBinaryExponential',
    'backoff/index.ts',
    [
      'Unknown option',
      'a backoff policy',
      'Backoff produced NaN',
      'a Clock with',
      'an AbortSignal',
      'to return a number, got',
    ],
  ],
  [
    'ResilientWebSocket',
    'websocket.ts',
    ['Failed to construct', 'Failed to execute', 'The subprotocol', 'as the second argument'],
  ],
  [
    'heartbeat, resume, handshake, upgradeRejection, bufferPolicy, providers, abortSignal',
    'modular.ts',
    [
      'Outbound buffer overflow',
      'buffering is disabled',
      'The handshake',
      'The heartbeat found',
      'No answer to the probe',
      "refused the heartbeat's ping",
      'binary data or a function',
      'must recognise their answers',
      'The server refused',
      'an AbortSignal',
      'leave resume() out',
      'name each subprotocol once',
      'Expected every entry of',
    ],
  ],
  [
    'delivery, jsonCodec',
    'modular.ts',
    [
      'No acknowledgement after',
      'the store keeps nothing across sessions',
      'stays in the persistent store',
      'The delivery store failed',
      'reliable messages already wait',
      'cannot encode',
      'it has no JSON form',
      'a store (persistent',
      'a codec (encode',
    ],
  ],
  ['useResilientSocket', 'vue.ts', ['outside a component and an effect scope', 'something JSON can write']],
];

describe('production bundles carry the codes and the names, not the development text', () => {
  it.each(IMPORTS)('{ %s } from src/%s', async (names, from, texts) => {
    const [production, development] = await Promise.all([
      bundle(names, from, 'production'),
      bundle(names, from, 'development'),
    ]);
    for (const text of texts) {
      expect(development, text).toContain(text);
      expect(production, text).not.toContain(text);
    }
    expect(production).not.toContain('process.env');
  });

  it('a browser bundle of the facade carries no CloseEvent stand-in (only the Node entries do)', async () => {
    const browser = await bundle('ResilientWebSocket', 'websocket.ts', 'production');
    expect(browser).not.toMatch(/["']CloseEvent["']/);
    const node = await bundle('NodeCloseEvent', 'websocket/close-event.ts', 'production');
    expect(node).toMatch(/["']CloseEvent["']/);
  });
});
