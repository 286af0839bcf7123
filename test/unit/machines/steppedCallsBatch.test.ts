import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { SessionLog } from '../../../session/types.js';
import { defineTool } from '../../../tools/index.js';
import { createBatchHarness, toolCall } from './toolBatch.harness.js';

const parameters = z.object({});
const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('calls stepped inside the batch, in a batch', () => {
  let warn: { mock: { calls: unknown[][] }; mockRestore(): void };
  beforeEach(() => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  });
  afterEach(() => warn.mockRestore());

  it('a refused tool/call append fails the batch; the call runs no guard or body after that, and warns of nothing', async () => {
    const harness = createBatchHarness();
    const body = vi.fn(() => 'ran');
    harness.tools.register(defineTool({ name: 't', description: 'x', parameters, execute: body }));
    const pre = vi.fn((_exec, next) => next());
    harness.seams.on('tools/pre-execute', pre);
    const guard = vi.fn(() => undefined);
    harness.seams.guard(guard);
    const refusing: SessionLog = {
      ...harness.log,
      appendCore: ((type, data) => {
        if (type === 'tool/call') throw new Error('disk full');
        return harness.log.appendCore(type, data);
      }) as SessionLog['appendCore'],
    };
    const { output } = await harness.run([toolCall('c1', 't')], { batchLog: refusing }).finished;
    expect(output).toEqual({ aborted: false, error: 'Recording tool/call failed: disk full' });
    await tick();
    expect(body).not.toHaveBeenCalled();
    // The batch failed while the call was being sealed: nothing after pre-execute runs for it.
    expect(guard).not.toHaveBeenCalled();
    // Before the fix, the call went on after its batch failed and reported PREPARED and SETTLED to it.
    expect(warn.mock.calls.map((args) => String(args[0]))).toEqual([]);
  });
});
