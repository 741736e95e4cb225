/**
 * The machine reads `RULES`; the transitions (`STATES[state].next`) feed only the funnel's
 * development check and programs that import `STATES`: a production bundle of the core alone
 * carries them not, one that imports `STATES` does.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function bundle(contents: string): Promise<string> {
  const result = await build({
    stdin: { contents, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    // The key written in parts: the production test run rewrites that expression in the repository's files.
    define: { [['process', 'env', 'NODE_ENV'].join('.')]: '"production"' },
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

describe('the state table in production bundles', () => {
  it('carries the transitions only with STATES', async () => {
    const transitions = 'open reconnecting closing closed';
    const core = "export { BaseSocket } from './src/modular.ts';";
    expect(await bundle(core)).not.toContain(transitions);
    expect(await bundle(`${core} export { STATES } from './src/index.ts';`)).toContain(transitions);
  });
});
