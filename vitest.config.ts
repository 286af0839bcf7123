import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests import the public entries by name, as users do; here the names mean the sources, not dist/
// (TypeScript maps `exports` back to the same files).
const entry = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^seamchart$/, replacement: entry('./index.ts') },
      { find: /^seamchart\/testing$/, replacement: entry('./testing.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Fails the test during which Node warned about a listener leak (R04).
    setupFiles: ['test/setup/failOnWarnings.ts'],
    // The end-to-end tests run the built CLI (dist/), as a user installs it.
    globalSetup: ['test/e2e/support/buildOnce.ts'],
    typecheck: { enabled: false },
    testTimeout: 20_000,
    // Threads without per-file isolation: ~26 s instead of ~60 s (threads) or ~73 s (forks) on 2 cores.
    // Test files share no hidden state: the suite also passes with shuffled file order.
    pool: 'threads',
    isolate: false,
    // An unhandled rejection anywhere fails the run (vitest reports it as an error).
    dangerouslyIgnoreUnhandledErrors: false,
  },
});
