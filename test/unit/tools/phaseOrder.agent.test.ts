// tools.md § Phase order of one call, through an agent: the rows a cancel reaches, and finalize, on a real agent.

import { createSeams, createToolRegistry } from 'seamchart';
import { describe, expect, it } from 'vitest';
import { agentRun, also, cancelDuring, expectSoundAndDispose, quiet, rows, tool } from './pipeline.js';

describe('tools.md § Phase order of one call, through an agent', () => {
  it('finalize column: once per call through an agent; unknown tool gets none; a tool/result event per call', async () => {
    const seams = createSeams({ logger: quiet });
    const seenResults: string[] = [];
    seams.on('tools/result', (c) => {
      seenResults.push(c.exec.callId);
    });
    const tools = createToolRegistry();
    const finalized: string[] = [];
    tools.register(
      tool({
        finalizeContent: (exec: { callId: string }) => also(finalized.push(exec.callId), undefined),
      } as never),
    );
    const agent = await agentRun({
      tools,
      seams,
      calls: [
        { id: 'c1', name: 'probe', arguments: {} },
        { id: 'c2', name: 'ghost', arguments: {} },
      ],
    });
    expect(finalized).toEqual(['c1']);
    expect(seenResults).toEqual(['c1', 'c2']);
    expect(rows(agent)).toEqual([
      'tool/call:c1',
      'tool/result:c1',
      'tool/call:c2',
      'tool/result:c2:UNKNOWN_TOOL',
    ]);
    await expectSoundAndDispose(agent);
  });

  it('row: aborted while in pre-execute (through an agent, by cancel) → ABORTED_BEFORE_DISPATCH; no post; finalize and tools/result once', async () => {
    const { phases, result } = await cancelDuring('pre');
    expect(result.error?.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(phases).toEqual(['pre', 'finalize', 'result:ABORTED_BEFORE_DISPATCH']);
  });

  it('row: aborted while in approval (through an agent, by cancel) → ABORTED_BEFORE_DISPATCH; no guard, no post', async () => {
    const { phases, result } = await cancelDuring('approval');
    expect(result.error?.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(phases).toEqual(['pre', 'approval', 'finalize', 'result:ABORTED_BEFORE_DISPATCH']);
  });

  it('row: body does not stop within the grace (through an agent, by cancel) → ABORTED "did not stop"; post, finalize, result once', async () => {
    const { phases, result } = await cancelDuring('body');
    expect(result.error).toMatchObject({ code: 'ABORTED', note: 'did not stop' });
    expect(phases).toEqual(['pre', 'guard', 'body', 'post', 'finalize', 'result:ABORTED']);
  });

  it('row: cancel during post-execute (through an agent) → ABORTED; finalize and result still run', async () => {
    const { phases, result } = await cancelDuring('post');
    expect(result.error?.code).toBe('ABORTED');
    expect(phases).toEqual(['pre', 'guard', 'body', 'post', 'finalize', 'result:ABORTED']);
  });
});
