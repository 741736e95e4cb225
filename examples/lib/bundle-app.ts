/**
 * Bundles a framework chat app (`examples/react-chat/app.ts`, `examples/vue-chat/app.ts`) for the
 * browser with esbuild, in memory (nothing is written to disk): the framework comes from
 * `node_modules`, and the library's entries are its browser build in `dist/` (`ensureBuilt()`
 * keeps it fresh), as a user's bundler would resolve them from the package.
 *
 * The framework's development build is bundled (`NODE_ENV` `development`): the examples are here
 * to show what it checks (React's StrictMode, Vue's warnings).
 */
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { REPO_ROOT } from './static-server.js';

/** An app bundled in memory. */
export interface AppBundle {
  /** The app as one ES module (`/app.js`, linked to its source map). */
  readonly js: string;
  /** Its source map (`/app.js.map`). */
  readonly map: string;
  /** The size of `js` in bytes. */
  readonly bytes: number;
}

export interface BundleAppOptions {
  /** The app's entry file (absolute path). */
  readonly entry: string;
  /** The library's entries the app imports (`react`, `modular`): `resilient-socket/<name>` is `dist/<name>.js`. */
  readonly library: readonly string[];
  /** More compile-time constants, besides `process.env.NODE_ENV`. */
  readonly define?: Readonly<Record<string, string>>;
  /** More import paths resolved to a file. */
  readonly alias?: Readonly<Record<string, string>>;
}

/** Bundles the app; rejects with esbuild's messages if it does not build. */
export async function bundleApp(options: BundleAppOptions): Promise<AppBundle> {
  const { entry, library, define = {}, alias = {} } = options;
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outfile: 'app.js', // a name for the output files (nothing is written)
    sourcemap: 'linked',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"development"', ...define },
    alias: {
      ...alias,
      ...Object.fromEntries(library.map((name) => [`resilient-socket/${name}`, join(REPO_ROOT, 'dist', `${name}.js`)])),
    },
  });
  const js = result.outputFiles.find((file) => file.path.endsWith('.js'));
  const map = result.outputFiles.find((file) => file.path.endsWith('.js.map'));
  if (!js || !map)
    throw new Error(`esbuild produced no output for ${relative(REPO_ROOT, entry).replaceAll('\\', '/')}`);
  return { js: js.text, map: map.text, bytes: js.contents.byteLength };
}
