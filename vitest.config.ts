import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// graphql ships a CommonJS and an ESM build; graphql-ws requires the CommonJS one, and vite would
// give our files the ESM one (two copies: "Cannot use GraphQLSchema from another module or realm").
// Node itself picks the CommonJS build for both, so this is what a user's app gets.
const graphql = { find: /^graphql$/, replacement: createRequire(import.meta.url).resolve('graphql') };

// A passing run prints nothing on stderr: this setup file fails a test that writes there.
const STDERR_GUARD = 'test/helpers/stderr-guard.ts';

// Projects: fast unit tests (fake timers / injected clocks, no real I/O), integration tests (real
// processes and real sockets on 127.0.0.1, each bounded in time), the reliability suite (real ws
// servers; what every failure path leaves behind: timers, listeners, connections), the examples'
// own tests, the browser tests (Debian's Chromium via playwright-core) and the runtime smoke suite.
// `npm test` runs all but `browser` and `runtimes` (it must work on a machine without Chromium or
// the other runtimes); `npm run test:browser` and `npm run test:runtimes` run those.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          setupFiles: [STDERR_GUARD],
          include: ['test/**/*.test.ts'],
          exclude: ['test/integration/**', 'test/reliability/**', 'test/browser/**', 'test/runtimes/**'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          setupFiles: [STDERR_GUARD],
          include: ['test/integration/**/*.test.ts'],
          alias: [graphql],
          environment: 'node',
          testTimeout: 20_000,
          hookTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'reliability',
          setupFiles: [STDERR_GUARD],
          include: ['test/reliability/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 20_000,
        },
      },
      {
        // The packed package on Node 22/24/26, Bun and Deno (scripts/runtimes.mjs installs them):
        // `npm run test:runtimes`, not part of `npm test`.
        test: {
          name: 'runtimes',
          include: ['test/runtimes/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 240_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          environment: 'node',
          // Builds dist/ when it is missing or older than src/ (the pages load dist/index.js).
          globalSetup: ['test/browser/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        // The examples' own tests import the package by name, as a user would; these aliases point
        // the names at the sources (the longer name first: the first match wins).
        resolve: {
          alias: [
            graphql,
            ...[
              'testing/index',
              'server/index',
              'websocket-node',
              'backoff/index',
              'modular-node',
              'react-node',
              'vue-node',
              'shared-node',
            ].map((path) => ({
              find: `resilient-socket/${path.replace(/-node$|\/index$/, '')}`,
              replacement: fileURLToPath(new URL(`./src/${path}.ts`, import.meta.url)),
            })),
            { find: 'resilient-socket', replacement: fileURLToPath(new URL('./src/node.ts', import.meta.url)) },
          ],
        },
        test: {
          name: 'examples',
          setupFiles: [STDERR_GUARD],
          include: ['examples/**/*.test.ts'],
          environment: 'node',
          // The integration examples run real servers on 127.0.0.1 (each bounded in time).
          testTimeout: 20_000,
          hookTimeout: 20_000,
        },
      },
    ],
  },
});
