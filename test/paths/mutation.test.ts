import { describe, expect, it } from 'vitest';
import type { HookContext } from '../../kernel/index.js';
import type { turnMachine } from '../../machines/turn.js';
import { checkInvariants, formatViolation } from '../../session/index.js';
import type { SessionLog } from '../../session/types.js';
import { describePath } from '../../testing/index.js';
import { executeTurnPath, turnPaths } from './support/turnPaths.js';

// The mutant flushes the step FIFO early: a context that arrives while the batch runs is appended at
// once instead of after the step's last tool/result. Nothing else changes, so the machine's values
// still follow the graph; only the log can tell.
const flushEarly = (logic: typeof turnMachine, log: SessionLog) =>
  logic.provide({
    actions: {
      pushStepFifo: (_: unknown, params: { contexts: readonly HookContext[] }) => {
        for (const { content, source } of params.contexts)
          log.appendCore('context/message', { content: [...content], source });
      },
    },
  });

describe('G01 mutation: a turn that flushes the step FIFO before the batch is done', () => {
  it('is caught by the generated path tests (invariant 6, active-batch adjacency)', async () => {
    const runs = turnPaths();
    const caught = new Map<string, string[]>();
    let executed = 0;
    // One configuration (all seams present) keeps the run short; its paths reach every FIFO window.
    for (const { config, input, paths } of runs.filter((run) => run.config.name === 'all present')) {
      for (const path of paths) {
        const run = await executeTurnPath(path, input as never, { mutate: flushEarly });
        executed++;
        const violations = checkInvariants(run.log.events);
        if (violations.length > 0)
          caught.set(`${config.name}: ${describePath(path)}`, violations.map(formatViolation));
      }
    }
    expect(executed).toBeGreaterThan(0);
    expect(caught.size).toBeGreaterThan(0);
    const messages = [...caught.values()].flat();
    expect(messages.some((message) => message.includes('active-batch'))).toBe(true);
    // The same paths against the real turn are clean (turn.paths.test.ts), so the mutation is what fails.
    const [name] = caught.keys();
    expect(name).toMatch(/INJECT|CALL_COMMITTED/);
  });
});
