/**
 * Bundles the Vue chat app (`./app.ts`) for the browser, in memory (`../lib/bundle-app.ts`): Vue
 * is its esm-bundler build from `node_modules` (the runtime only: the app is written with render
 * functions, no template to compile), and `resilient-socket/vue` and `resilient-socket/modular`
 * are the library's browser build in `dist/`.
 *
 * The esm-bundler build leaves its compile-time flags to the bundler: they are defined here as a
 * Vue app's build tool would (no Options API, no devtools in production, no hydration details).
 * Vue's development build is bundled on purpose (`NODE_ENV` `development`): it reports misuse as
 * `[Vue warn]` console warnings, which the browser test requires to be none.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AppBundle, bundleApp } from '../lib/bundle-app.js';
import { REPO_ROOT } from '../lib/static-server.js';

const ENTRY = fileURLToPath(new URL('./app.ts', import.meta.url));

/** Bundles the app; rejects with esbuild's messages if it does not build. */
export function bundleVueChat(): Promise<AppBundle> {
  return bundleApp({
    entry: ENTRY,
    library: ['vue', 'modular'],
    define: {
      __VUE_OPTIONS_API__: 'false',
      __VUE_PROD_DEVTOOLS__: 'false',
      __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
    },
    alias: { vue: join(REPO_ROOT, 'node_modules', 'vue', 'dist', 'vue.runtime.esm-bundler.js') },
  });
}
