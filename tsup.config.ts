import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

/** Internal property names the build shortens: a lower-case identifier ending in `_` (never `__proto__`). */
const MANGLED = /^[a-z][A-Za-z0-9]*_$/;

// `npm run build` empties dist/ first; both configs below add to it (tsup may run them at once,
// so neither may clean).
export default defineConfig([
  {
    // The library: the public entry points (plus the Node variants of the browser ones), each as ESM
    // (.js + .d.ts) and CommonJS (.cjs + .d.cts). `backoff` must stay free of eventemitter3 and ws:
    // scripts/check-package.mjs verifies it.
    entry: {
      index: 'src/index.ts',
      node: 'src/node.ts',
      modular: 'src/modular.ts',
      'modular-node': 'src/modular-node.ts',
      websocket: 'src/websocket.ts',
      'websocket-node': 'src/websocket-node.ts',
      react: 'src/react.ts',
      'react-node': 'src/react-node.ts',
      shared: 'src/shared.ts',
      'shared-node': 'src/shared-node.ts',
      backoff: 'src/backoff/index.ts',
      testing: 'src/testing/index.ts',
    },
    // import.meta.url in the CommonJS build of the Node entry (createRequire for ws).
    shims: true,
    external: ['ws', 'mock-socket', 'react'],
    format: ['esm', 'cjs'],
    dts: true,
    target: 'es2022',
    platform: 'neutral',
    sourcemap: true,
    clean: false,
    // tsup's rollup pass: without it the CommonJS chunks assign static class fields (`this.name = …`,
    // which throws on a class). An entry that only re-exports another would leave an empty chunk, so
    // none does (see `src/modular-node.ts`).
    treeshake: true,
    splitting: true,
    outDir: 'dist',
    // Internal members end in `_` (the machine's record, the features' services): shortened in the
    // build, consistently across every chunk of this build.
    esbuildOptions(options) {
      options.mangleProps = MANGLED;
    },
  },
  {
    // The `resilient-socket` command: one ESM file for Node (the shebang comes from bin.ts).
    entry: { cli: 'src/cli/bin.ts' },
    external: ['ws'],
    format: ['esm'],
    define: { __VERSION__: JSON.stringify(version) },
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
