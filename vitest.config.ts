import { defineConfig } from 'vitest/config';

// Three projects: fast unit tests (fake timers / injected clocks, no real I/O), integration
// tests (real processes and real sockets on 127.0.0.1, each bounded in time) and the reliability
// suite (real ws servers; what every failure path leaves behind: timers, listeners, connections).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/integration/**', 'test/reliability/**', 'test/browser/**'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 20_000,
          hookTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'reliability',
          include: ['test/reliability/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 20_000,
        },
      },
    ],
  },
});
