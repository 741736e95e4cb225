/**
 * Bundles the React chat app (`./app.ts`) for the browser with esbuild, in memory (nothing is
 * written to disk): React and react-dom come from `node_modules`, and `resilient-socket/react` and
 * `resilient-socket/modular` are the library's browser build in `dist/` (`ensureBuilt()` keeps it
 * fresh), as a user's bundler would resolve them from the package.
 *
 * React's development build is bundled on purpose (`NODE_ENV` `development`): only that build runs
 * StrictMode's extra mount, unmount and mount of every effect, which the example is here to show.
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
    define: { 'process.env.NODE_ENV': '"development"' },
    alias: {
      'resilient-socket/react': join(REPO_ROOT, 'dist', 'react.js'),
      'resilient-socket/modular': join(REPO_ROOT, 'dist', 'modular.js'),
    },
  });
  const js = result.outputFiles.find((file) => file.path.endsWith('.js'));
  const map = result.outputFiles.find((file) => file.path.endsWith('.js.map'));
  if (!js || !map) throw new Error('esbuild produced no output for examples/react-chat/app.ts');
  return { js: js.text, map: map.text, bytes: js.contents.byteLength };
}
