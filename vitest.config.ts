import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    typecheck: { enabled: false },
    testTimeout: 20_000,
    // An unhandled rejection anywhere fails the run (vitest reports it as an error).
    dangerouslyIgnoreUnhandledErrors: false,
  },
});
