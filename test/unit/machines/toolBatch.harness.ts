import { assign, createActor, sendTo, setup } from 'xstate';
import type { HookContext, ToolCallBlock } from '../../../kernel/index.js';
import { liveHandlesOf } from '../../../machines/runtime/liveHandles.js';
import { createToolBatchLogic } from '../../../machines/toolBatch/logic.js';
import type { ToolBatchOutput } from '../../../machines/toolBatch/types.js';
import { createSeams } from '../../../seams/index.js';
import type { Seams } from '../../../seams/types.js';
import { createSessionLog } from '../../../session/index.js';
import type { SessionLog } from '../../../session/types.js';
import { createToolRegistryCore } from '../../../tools/index.js';
import type { ToolRegistryCore } from '../../../tools/types.js';
import { createRecordingLogger } from '../tools/fixtures.js';

/** A tool-call block as the model would send it (ids `c1`, `c2`, …). */
export function toolCall(id: string, name: string, args: unknown = {}): ToolCallBlock {
  return { type: 'tool-call', id, name, arguments: JSON.stringify(args) };
}

export interface BatchRun {
  /** Resolves after the stand-in turn recorded contexts, step/end and turn/end. */
  readonly finished: Promise<{ output: ToolBatchOutput; contexts: HookContext[] }>;
  /** What a turn CANCEL does: send ABORT to the batch and abort the run's signal. */
  abort(): void;
  /** Only the ABORT event: the run's signal stays live, so the batch must forward the abort. */
  abortBatchOnly(): void;
}

export interface RunOptions {
  maxParallel?: number;
  cancelGraceMs?: number;
  /** The log the batch appends to (e.g. one that refuses an append); the harness log by default. */
  batchLog?: SessionLog;
  /** The run's signal is aborted before the batch starts (a turn cancelled as its tools were about to run). */
  abortedBeforeStart?: boolean;
}

export interface BatchHarness {
  readonly log: SessionLog;
  readonly seams: Seams;
  readonly tools: ToolRegistryCore;
  run(calls: ToolCallBlock[], options?: RunOptions): BatchRun;
  /** `type callId` per tool event, e.g. `tool/call c1`; contexts as `context/message <text>`. */
  trace(): string[];
}

/**
 * A stand-in for the turn: opens a turn and a step, records the assistant message, invokes the batch,
 * collects CALL_COMMITTED contexts, then appends them as context/message, step/end and turn/end.
 */
export function createBatchHarness(): BatchHarness {
  const log = createSessionLog();
  const seams = createSeams({ logger: createRecordingLogger() });
  const tools = createToolRegistryCore();
  let turn = 0;

  const run: BatchHarness['run'] = (calls, options = {}) => {
    turn += 1;
    const controller = new AbortController();
    const scopeKey = 'test-turn';
    const toolBatch = createToolBatchLogic({
      tools,
      seams,
      log: options.batchLog ?? log,
      cancelGraceMs: options.cancelGraceMs ?? 5_000,
    });
    log.appendCore('turn/start', { turn, trigger: { kind: 'message', source: { kind: 'user' } } });
    log.appendCore('user/message', { content: [{ type: 'text', text: 'go' }], source: { kind: 'user' } });
    log.appendCore('step/start', { turn, step: 1 });
    log.appendCore('assistant/message', { turn, step: 1, content: calls, finish: 'tool-calls' });
    const standIn = setup({
      types: {
        context: {} as { contexts: HookContext[]; output: ToolBatchOutput | null },
        events: {} as
          | { type: 'CALL_COMMITTED'; callId: string; contexts: HookContext[] }
          | { type: 'CANCEL' },
        output: {} as { output: ToolBatchOutput; contexts: HookContext[] },
      },
      actors: { toolBatch },
    }).createMachine({
      context: { contexts: [], output: null },
      initial: 'tools',
      states: {
        tools: {
          invoke: {
            id: 'toolBatch',
            src: 'toolBatch',
            input: ({ self }) => ({
              parent: self,
              scopeKey,
              turn,
              step: 1,
              calls,
              maxParallel: options.maxParallel ?? 10,
            }),
            onDone: { target: 'done', actions: assign({ output: ({ event }) => event.output }) },
            onError: { target: 'done' },
          },
          on: {
            CALL_COMMITTED: {
              actions: assign({ contexts: ({ context, event }) => [...context.contexts, ...event.contexts] }),
            },
            CANCEL: { actions: sendTo('toolBatch', { type: 'ABORT' }) },
          },
        },
        done: { type: 'final' },
      },
      output: ({ context }) => ({
        output: context.output ?? { aborted: false, error: 'batch died' },
        contexts: context.contexts,
      }),
    });
    const actor = createActor(standIn);
    // The batch's run scope lives in the actor system it joins.
    liveHandlesOf(actor.system).scopes.openAs(scopeKey, { seams: seams.snapshot(), controller });
    const finished = new Promise<{ output: ToolBatchOutput; contexts: HookContext[] }>((resolve, reject) => {
      actor.subscribe({
        complete: () => {
          const result = actor.getSnapshot().output!;
          for (const context of result.contexts) log.appendCore('context/message', context);
          log.appendCore('step/end', { turn, step: 1 });
          log.appendCore('turn/end', {
            turn,
            reason: result.output.aborted ? { kind: 'aborted' } : { kind: 'completed' },
          });
          liveHandlesOf(actor.system).close(scopeKey);
          resolve(result);
        },
        error: reject,
      });
    });
    if (options.abortedBeforeStart) controller.abort();
    actor.start();
    return {
      finished,
      abort: () => {
        actor.send({ type: 'CANCEL' });
        controller.abort();
      },
      abortBatchOnly: () => actor.send({ type: 'CANCEL' }),
    };
  };

  const trace = (): string[] =>
    log.events.flatMap((event) => {
      const data = event.data as { callId?: string; content?: { text?: string }[] };
      if (event.type === 'tool/call' || event.type === 'tool/result') return [`${event.type} ${data.callId}`];
      if (event.type === 'context/message') return [`context/message ${data.content?.[0]?.text}`];
      return [];
    });

  return { log, seams, tools, run, trace };
}
