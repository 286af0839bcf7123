import { afterAll, afterEach } from 'vitest';

// R04: a listener leak shows up as Node's MaxListenersExceededWarning; the test that caused it fails.
// Without per-file isolation this file runs once per test file in the same worker: listen once.
const key = Symbol.for('seamchart.test.listenerLeaks');
const shared = globalThis as { [key]?: Error[] };
shared[key] ??= watchWarnings();
const leaks: Error[] = shared[key];

// XState's development build (the one vitest loads) warns on console.warn about misuse a user would
// see in their own tests: an event sent to a stopped actor, a builtin called inside a custom action.
// The test during which one was printed fails (a test that spies on console.warn checks its own).
const xstateWarnings = [/was sent to stopped actor/, /^Custom actions should not call `\w+\(\)` directly/];
const warnKey = Symbol.for('seamchart.test.xstateWarnings');
const sharedWarnings = globalThis as { [warnKey]?: string[] };
sharedWarnings[warnKey] ??= watchConsoleWarnings();
const printed: string[] = sharedWarnings[warnKey];

function watchConsoleWarnings(): string[] {
  const found: string[] = [];
  const original = console.warn.bind(console);
  console.warn = (...args: unknown[]) => {
    const message = String(args[0]);
    if (xstateWarnings.some((pattern) => pattern.test(message))) found.push(message);
    original(...args);
  };
  return found;
}

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
  const warned = printed.splice(0);
  if (warned.length > 0) throw new Error(`XState warned ${when}: ${warned.join('; ')}`);
}

afterEach(() => failOnLeaks('during this test'));
afterAll(() => failOnLeaks('after the last test of this file'));
