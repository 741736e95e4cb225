import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The package as users run it: the built Node entry, `dist/dev/node.js` (what the `node` export
 * condition gives), not `src/` through tsx, whose transform adds a property to every named function
 * and would inflate the memory figures. Typed from `src/`, loaded at run time from `dist/`;
 * `npm run build` must have run.
 */
export async function loadPackage(): Promise<typeof import('../../src/node.js')> {
  const url = new URL('../../dist/dev/node.js', import.meta.url);
  if (!existsSync(fileURLToPath(url))) throw new Error('bench: dist/ is missing; run `npm run build` first');
  return (await import(url.href)) as typeof import('../../src/node.js');
}

/** The modular entry as users run it in Node: `dist/dev/modular-node.js` (see {@link loadPackage}). */
export async function loadModular(): Promise<typeof import('../../src/modular-node.js')> {
  const url = new URL('../../dist/dev/modular-node.js', import.meta.url);
  if (!existsSync(fileURLToPath(url))) throw new Error('bench: dist/ is missing; run `npm run build` first');
  return (await import(url.href)) as typeof import('../../src/modular-node.js');
}

/** Whether the module at `moduleUrl` (its `import.meta.url`) is the script Node was started with. */
export function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && moduleUrl === pathToFileURL(script).href;
}
