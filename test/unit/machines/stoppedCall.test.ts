import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { z } from 'zod';
import { createSeams, createToolCallLogic, createToolRegistry, defineTool } from '../../../index.js';

/** A tool whose body waits for its signal and reports when it started and when it was aborted. */
function createWaitingTool() {
  let started!: () => void;
  const bodyStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  let aborted!: (reason: unknown) => void;
  const bodyAborted = new Promise<unknown>((resolve) => {
    aborted = resolve;
  });
  const tool = defineTool({
    name: 'wait',
    description: 'Waits until it is aborted',
    parameters: z.object({}),
    execute: (_input, { signal }) =>
      new Promise<string>((_resolve, reject) => {
        signal.addEventListener('abort', () => {
          aborted(signal.reason);
          reject(new Error('aborted'));
        });
        started();
      }),
  });
  return { tool, bodyStarted, bodyAborted };
}

describe('a stopped standalone call', () => {
  it('actor.stop() mid-body aborts the body and releases the call', async () => {
    const { tool, bodyStarted, bodyAborted } = createWaitingTool();
    const tools = createToolRegistry();
    tools.register(tool);
    const seams = createSeams();
    const preExecuteSignals: AbortSignal[] = [];
    seams.on('tools/pre-execute', (exec) => {
      preExecuteSignals.push(exec.signal);
      return { kind: 'allow' };
    });
    const logic = createToolCallLogic({ tools, seams, cancelGraceMs: 5_000 });
    const actor = createActor(logic, {
      input: { call: { callId: 'c1', name: 'wait', arguments: '{}' } },
    }).start();
    await bodyStarted;
    actor.stop();
    const outcome = await Promise.race([
      bodyAborted.then(() => 'aborted'),
      new Promise((resolve) => setTimeout(() => resolve('still running'), 2_000)),
    ]);
    expect(outcome).toBe('aborted');
    expect(actor.getSnapshot().status).toBe('stopped');
    expect(preExecuteSignals).toHaveLength(1);
  });

  it('actor.stop() while a listener is deciding aborts the listener signal', async () => {
    const { tool } = createWaitingTool();
    const tools = createToolRegistry();
    tools.register(tool);
    const seams = createSeams();
    let listenerSignal: AbortSignal | undefined;
    let entered!: () => void;
    const listenerEntered = new Promise<void>((resolve) => {
      entered = resolve;
    });
    seams.on('tools/pre-execute', (exec) => {
      listenerSignal = exec.signal;
      entered();
      return new Promise(() => {});
    });
    const logic = createToolCallLogic({ tools, seams, cancelGraceMs: 5_000 });
    const actor = createActor(logic, {
      input: { call: { callId: 'c1', name: 'wait', arguments: '{}' } },
    }).start();
    await listenerEntered;
    expect(listenerSignal?.aborted).toBe(false);
    actor.stop();
    expect(listenerSignal?.aborted).toBe(true);
  });
});
