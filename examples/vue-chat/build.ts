/**
 * Bundles the Vue chat app (`./app.ts`) for the browser with esbuild, in memory (nothing is written
 * to disk): Vue is its esm-bundler build from `node_modules` (the runtime only: the app is written
 * with render functions, no template to compile), and `resilient-socket/vue` and
 * `resilient-socket/modular` are the library's browser build in `dist/` (`ensureBuilt()` keeps it
 * fresh), as a user's bundler would resolve them from the package.
 *
 * The esm-bundler build leaves its compile-time flags to the bundler: they are defined here as a
 * Vue app's build tool would (no Options API, no devtools in production, no hydration details).
 * Vue's development build is bundled on purpose (`NODE_ENV` `development`): it reports misuse as
 * `[Vue warn]` console warnings, which the browser test requires to be none.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { AppBundle } from '../lib/bundled-chat-server.js';
import { REPO_ROOT } from '../lib/static-server.js';

const ENTRY = fileURLToPath(new URL('./app.ts', import.meta.url));

/** Bundles the app; rejects with esbuild's messages if it does not build. */
export async function bundleApp(): Promise<AppBundle> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outfile: 'app.js', // a name for the output files (nothing is written)
    sourcemap: 'linked',
    logLevel: 'silent',
    define: {
      'process.env.NODE_ENV': '"development"',
      __VUE_OPTIONS_API__: 'false',
      __VUE_PROD_DEVTOOLS__: 'false',
      __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
    },
    alias: {
      vue: join(REPO_ROOT, 'node_modules', 'vue', 'dist', 'vue.runtime.esm-bundler.js'),
      'resilient-socket/vue': join(REPO_ROOT, 'dist', 'vue.js'),
      'resilient-socket/modular': join(REPO_ROOT, 'dist', 'modular.js'),
    },
  });
  const js = result.outputFiles.find((file) => file.path.endsWith('.js'));
  const map = result.outputFiles.find((file) => file.path.endsWith('.js.map'));
  if (!js || !map) throw new Error('esbuild produced no output for examples/vue-chat/app.ts');
  return { js: js.text, map: map.text, bytes: js.contents.byteLength };
}
