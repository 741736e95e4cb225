/**
 * Bundles the React chat app (`./app.ts`) for the browser, in memory (`../lib/bundle-app.ts`):
 * React and react-dom come from `node_modules`, and `resilient-socket/react` and
 * `resilient-socket/modular` are the library's browser build in `dist/`.
 *
 * React's development build is bundled on purpose (`NODE_ENV` `development`): only that build runs
 * StrictMode's extra mount, unmount and mount of every effect, which the example is here to show.
 */
import { fileURLToPath } from 'node:url';
import { type AppBundle, bundleApp } from '../lib/bundle-app.js';

const ENTRY = fileURLToPath(new URL('./app.ts', import.meta.url));

/** Bundles the app; rejects with esbuild's messages if it does not build. */
export function bundleReactChat(): Promise<AppBundle> {
  return bundleApp({ entry: ENTRY, library: ['react', 'modular'] });
}
