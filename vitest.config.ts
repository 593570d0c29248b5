import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A hang guard for a noisy 2-core machine, not a speed target: speed is measured by benchmarks.
    testTimeout: 15_000,
    globalSetup: ['test/support/build_once.ts', 'test/support/postgres_server.ts'],
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
    },
  },
});
