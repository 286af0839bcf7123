import { afterAll, afterEach } from 'vitest';

// R04: a listener leak shows up as Node's MaxListenersExceededWarning; the test that caused it fails.
// Without per-file isolation this file runs once per test file in the same worker: listen once.
const key = Symbol.for('seamchart.test.listenerLeaks');
const shared = globalThis as { [key]?: Error[] };
shared[key] ??= watchWarnings();
const leaks: Error[] = shared[key];

function watchWarnings(): Error[] {
  const found: Error[] = [];
  process.on('warning', (warning) => {
    if (warning.name === 'MaxListenersExceededWarning') found.push(warning);
  });
  return found;
}

async function failOnLeaks(when: string): Promise<void> {
  // Node emits warnings on a later tick: let them arrive first.
  await new Promise((resolve) => setImmediate(resolve));
  const found = leaks.splice(0);
  if (found.length > 0)
    throw new Error(`MaxListenersExceededWarning ${when}: ${found.map((w) => w.message).join('; ')}`);
}

afterEach(() => failOnLeaks('during this test'));
afterAll(() => failOnLeaks('after the last test of this file'));
