import { defaultExclude, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import base from './vitest.config.js';

// `npm run test:production`: the node-side suites (unit, integration, reliability, examples) against
// the production messages, as a production bundle ships them: `process.env.NODE_ENV` is replaced by
// "production" in the repository's files that vite transforms (the sources and the tests; not
// node_modules, so React and the others stay as `npm test` has them, and not the child processes
// some tests start). Every check still runs and throws the same class and code; messages are short.
// `test/helpers/mode.ts` tells a test which mode it runs in.
//
// Left out: what the package only ships in its development flavour, whatever the app's mode: the
// CLI (its tests, and the chat example's, which drives it), the test kit (`resilient-socket/testing`)
// and the server helper (`resilient-socket/server`, Node only).
// Also the three tests that run the build (it makes both flavours itself) and measure or run its
// output (the two fresh-clone ones, the README's first program): the mode of the sources under
// test does not reach them.
const DEVELOPMENT_ONLY: Record<string, string[]> = {
  unit: ['test/cli/**', 'test/testing/**', 'test/server/**'],
  integration: [
    'test/integration/cli-*.test.ts',
    'test/integration/chat-example.test.ts',
    'test/integration/test-kit-ws-server.test.ts',
    'test/integration/pack-fresh-clone.test.ts',
    'test/integration/size-fresh-clone.test.ts',
    'test/integration/readme-first-socket.test.ts',
    'test/integration/cluster.test.ts',
    'test/integration/cluster-faults.test.ts',
    'test/integration/server-heap.test.ts',
  ],
  reliability: ['test/reliability/cluster-failover.test.ts'],
};

/** A vite plugin, as a project's `plugins` takes it. */
type Plugin = Extract<NonNullable<TestProjectInlineConfiguration['plugins']>[number], { name: string }>;

/**
 * Replaces `process.env.NODE_ENV` with `"production"` in the repository's own files. Not vite's
 * `define`: in the jsdom projects (the web transform) it also changes how vite stubs `node:`
 * modules, and their imports fail. The replacement is padded to the same length, so positions, and
 * the source maps with them, stay right.
 */
const productionMessages: Plugin = {
  name: 'production-messages',
  enforce: 'pre',
  transform(code, id) {
    if (id.includes('/node_modules/') || !code.includes('process.env.NODE_ENV')) return null;
    const production = '"production"'.padEnd('process.env.NODE_ENV'.length);
    return { code: code.replace(/(?<![\w$.])process\.env\.NODE_ENV\b/g, production), map: null };
  },
};

const projects = (base.test?.projects ?? [])
  .filter((project): project is TestProjectInlineConfiguration => typeof project === 'object')
  .filter((project) => project.test?.name !== 'browser' && project.test?.name !== 'runtimes')
  .map((project) => {
    const name = project.test?.name;
    const left = typeof name === 'string' ? (DEVELOPMENT_ONLY[name] ?? []) : [];
    return {
      ...project,
      plugins: [...(project.plugins ?? []), productionMessages],
      test: {
        ...project.test,
        exclude: [...(project.test?.exclude ?? defaultExclude), ...left],
        // What test/helpers/mode.test.ts checks the replacement against.
        env: { ...project.test?.env, RS_TEST_MESSAGES: 'production' },
      },
    };
  });

export default defineConfig({ ...base, test: { ...base.test, projects } });
