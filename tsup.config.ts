import { readFileSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

/** Internal property names the build shortens: a lower-case identifier ending in `_` (never `__proto__`). */
const MANGLED = /^[a-z][A-Za-z0-9]*_$/;

/** The entries a browser may load: built in both flavours. */
const BROWSER_ENTRIES = {
  index: 'src/index.ts',
  modular: 'src/modular.ts',
  websocket: 'src/websocket.ts',
  react: 'src/react.ts',
  vue: 'src/vue.ts',
  shared: 'src/shared.ts',
  backoff: 'src/backoff/index.ts',
};

/** The entries for Node (the ws transport; the test kit; the server helper): development flavour only. */
const NODE_ENTRIES = {
  node: 'src/node.ts',
  'modular-node': 'src/modular-node.ts',
  'websocket-node': 'src/websocket-node.ts',
  'react-node': 'src/react-node.ts',
  'vue-node': 'src/vue-node.ts',
  'shared-node': 'src/shared-node.ts',
  testing: 'src/testing/index.ts',
  server: 'src/server/index.ts',
};

/**
 * `process.env.NODE_ENV` replaced by `mode`, so that no built file reads `process` for it (a browser
 * loading a file directly has none) and, in production, the message text is dead code the build drops.
 */
const flavour = (mode: 'production' | 'development'): Record<string, string> => ({
  'process.env.NODE_ENV': JSON.stringify(mode),
});

/**
 * What both flavours of the library share: ESM (.js) and CommonJS (.cjs), shared chunks (each
 * flavour has its own: one never imports the other's), mangled internals.
 */
const library: Options = {
  // import.meta.url in the CommonJS build of the Node entries (createRequire for ws).
  shims: true,
  external: ['ws', 'mock-socket', 'react', 'vue'],
  format: ['esm', 'cjs'],
  target: 'es2022',
  platform: 'neutral',
  sourcemap: true,
  clean: false,
  // tsup's rollup pass: without it the CommonJS chunks assign static class fields (`this.name = …`,
  // which throws on a class); it also drops the branches the define made dead. An entry that only
  // re-exports another would leave an empty chunk, so none does (see `src/modular-node.ts`).
  treeshake: true,
  splitting: true,
  // Internal members end in `_` (the machine's record, the features' services): shortened in the
  // build, consistently across every chunk of one flavour.
  esbuildOptions(options) {
    options.mangleProps = MANGLED;
  },
};

// `npm run build` empties dist/ first; the configs below add to it (tsup may run them at once, so
// none may clean). The layout, which package.json's `exports` map:
//   dist/*.js, *.cjs      production flavour of the browser entries (short messages; the default)
//   dist/dev/*.js, *.cjs  development flavour, with source maps: the browser entries again, the Node
//                         entries, the test kit
//   dist/*.d.ts, *.d.cts  the one set of declarations, for both flavours (the types do not differ)
//   dist/cli.js           the `resilient-socket` command (development: Node gets the full text)
// `backoff` must stay free of eventemitter3 and ws: scripts/check-package.mjs verifies it.
export default defineConfig([
  {
    ...library,
    entry: BROWSER_ENTRIES,
    define: flavour('production'),
    outDir: 'dist',
    // No source maps: they would add half the tarball again, its files are not minified (a stack
    // trace reads as it is), and the development flavour maps to the TypeScript sources.
    sourcemap: false,
    dts: { entry: { ...BROWSER_ENTRIES, ...NODE_ENTRIES } },
  },
  {
    ...library,
    entry: { ...BROWSER_ENTRIES, ...NODE_ENTRIES },
    define: flavour('development'),
    outDir: 'dist/dev',
    dts: false,
  },
  {
    // The `resilient-socket` command: one ESM file for Node (the shebang comes from bin.ts).
    entry: { cli: 'src/cli/bin.ts' },
    external: ['ws'],
    format: ['esm'],
    define: { ...flavour('development'), __VERSION__: JSON.stringify(version) },
    target: 'node18',
    platform: 'node',
    sourcemap: true,
    clean: false,
    splitting: false,
    outDir: 'dist',
    esbuildOptions(options) {
      options.mangleProps = MANGLED;
    },
  },
]);
