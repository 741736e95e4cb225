import { defineConfig } from 'tsup';

// Two entry points, each built as ESM (.js + .d.ts) and CommonJS (.cjs + .d.cts).
// `backoff` must stay free of eventemitter3 and ws: scripts/check-package.mjs verifies it.
export default defineConfig({
  entry: { index: 'src/index.ts', node: 'src/node.ts', backoff: 'src/backoff/index.ts' },
  // import.meta.url in the CommonJS build of the Node entry (createRequire for ws).
  shims: true,
  external: ['ws'],
  format: ['esm', 'cjs'],
  dts: true,
  target: 'es2022',
  platform: 'neutral',
  sourcemap: true,
  clean: true,
  treeshake: true,
  splitting: true,
  outDir: 'dist',
});
