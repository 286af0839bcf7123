import { describe, expect, it } from 'vitest';
import { createTestAgent, sleep } from './helpers.js';

describe('notifications that trigger deliveries', () => {
  it('R05 an agent/error listener that injects while a session/event listener keeps throwing does not loop; the agent stays responsive', async () => {
    let injected = 0;
    const run = createTestAgent({
      script: [{ text: 'still here' }],
      register: (seams) => {
        seams.on('session/event', () => {
          throw new Error('subscriber down');
        });
        seams.on('agent/error', () => {
          injected++;
          run.agent.inject('an error happened');
        });
      },
    });
    run.agent.inject('first');
    // A timer still fires: the loop does not starve the event loop.
    await sleep(50);
    const reports = run.notifications.of('agent/error');
    expect(reports.length).toBeGreaterThan(0);
    expect(reports.length).toBeLessThan(200);
    expect(injected).toBe(reports.length);
    // Every failure (one per appended event) reached the logger exactly once, reported or not.
    const failures = run.logger.lines.filter((line) => line.includes('subscriber down'));
    expect(failures).toHaveLength(run.agent.log.events.length);
    run.agent.followup('are you there?');
    await run.agent.whenIdle();
    expect(run.model.requests).toHaveLength(1);
    run.expectInvariants();
    await run.agent.dispose();
  });

  it('R05 followup() and inject() with a bigint or a cyclic meta throw a TypeError that names the problem', async () => {
    const run = createTestAgent({ script: [] });
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => run.agent.followup('x', { meta: 10n as never })).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: agent.followup(): expected options { source?, contexts?, meta? } to be plain JSON, got a bigint at "options.meta"]`,
    );
    expect(() => run.agent.inject('x', { meta: cyclic as never })).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: agent.inject(): expected options { source?, meta? } to be plain JSON, got a cycle at "options.meta.self"]`,
    );
    expect(() => run.agent.steer('x', { meta: new Date() as never })).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: agent.steer(): expected options { source?, contexts?, meta? } to be plain JSON, got an instance of Date at "options.meta"]`,
    );
    expect(run.agent.log.events.filter((e) => e.type !== 'session/start')).toEqual([]);
    await run.agent.dispose();
    run.expectInvariants();
  });
});
