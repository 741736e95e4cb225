import { defineConfig } from 'vitest/config';

// Two projects: fast unit tests (fake timers / injected clocks, no real I/O) and integration
// tests (real processes and real sockets on 127.0.0.1, each bounded in time).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/integration/**', 'test/browser/**'],
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
    ],
  },
});
