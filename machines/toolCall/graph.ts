import type { AnyEventObject } from 'xstate';
import { createFailureResult, createSuccessResult } from '../../tools/index.js';
import type {
  ApprovalOutput,
  DetachOutput,
  DispatchOutput,
  FinalizeOutput,
  GuardsOutput,
  PostExecuteOutput,
  PreExecuteOutput,
  PrepareOutput,
  ToolPhase,
  ToolSeamsPresent,
} from './types.js';
import { toolSeamKeys } from './types.js';

const done = <T>(phase: ToolPhase, output: T): AnyEventObject => ({ type: `${phase}.done`, output });
const fail = (phase: ToolPhase, message: string): AnyEventObject => ({
  type: `${phase}.error`,
  error: { message },
});

/** The n + 2 seam configurations: all empty, all present, and each seam absent in turn. */
export const seamConfigurations: readonly ToolSeamsPresent[] = [
  presence(() => false),
  presence(() => true),
  ...toolSeamKeys.map((absent) => presence((key) => key !== absent)),
];

const detached = (seamsPresent: ToolSeamsPresent): DetachOutput => ({
  callId: 'c1',
  name: 'echo',
  hasFinalizer: true,
  seamsPresent,
  preparable: true,
  outcome: 'detached',
});
const success = createSuccessResult('ok', [{ type: 'text', text: 'ok' }]);
const context = {
  content: [{ type: 'text' as const, text: 'ctx' }],
  source: { kind: 'plugin' as const, plugin: 'p' },
};

/**
 * Synthetic events for `xstate/graph` traversal of `toolCallMachine`: a `<phase>.done`/`<phase>.error`
 * event for every outcome of every phase, `CANCEL_GRACE_OVER`, and `RECORDED`/`COMMIT`/`ABORT`. Outputs are plain objects.
 */
export const graphEvents: readonly AnyEventObject[] = [
  ...seamConfigurations.map((present) => done<DetachOutput>('detach', detached(present))),
  // Arguments that are not a JSON object, or an unknown tool: prepare is skipped.
  done<DetachOutput>('detach', { ...detached(presence(() => true)), preparable: false }),
  done<DetachOutput>('detach', {
    ...detached(presence(() => true)),
    preparable: false,
    outcome: 'invalid-args',
    message: 'Arguments are not plain JSON: a function at "arguments.f"',
  }),
  done<DetachOutput>('detach', { ...detached(presence(() => true)), outcome: 'pre-aborted' }),
  fail('detach', 'No tool call "k"'),
  done<PrepareOutput>('prepare', { outcome: 'prepared' }),
  done<PrepareOutput>('prepare', {
    outcome: 'refused',
    result: createFailureResult(
      'INVALID_ARGS',
      'Listener "p" on seam "tools/prepare" returned invalid arguments for tool "echo": text: expected string',
    ),
  }),
  fail('prepare', 'Listener "p" on seam "tools/prepare" failed: boom'),
  done<PreExecuteOutput>('preExecute', {
    decision: { kind: 'allow', additionalContexts: [context] },
    decidedBy: 'p',
  }),
  done<PreExecuteOutput>('preExecute', { decision: { kind: 'deny', reason: 'no' }, decidedBy: 'p' }),
  done<PreExecuteOutput>('preExecute', { decision: { kind: 'ask', reason: 'sure?' }, decidedBy: 'p' }),
  fail('preExecute', 'Listener "p" on seam "tools/pre-execute" threw: boom'),
  done<ApprovalOutput>('approval', { kind: 'granted' }),
  done<ApprovalOutput>('approval', { kind: 'denied', reason: 'Approval for tool "echo" was rejected' }),
  done<ApprovalOutput>('approval', { kind: 'aborted' }),
  // Someone answers later: the call parks (approvals.md).
  done<ApprovalOutput>('approval', { kind: 'deferred', expiresAt: null }),
  fail('approval', 'approval channel failed'),
  done<GuardsOutput>('guards', { denied: null, by: null }),
  done<GuardsOutput>('guards', { denied: 'not here', by: 'g' }),
  fail('guards', 'Guard "g" threw: boom'),
  done<DispatchOutput>('dispatch', { result: success, contexts: [context] }),
  done<DispatchOutput>('dispatch', { result: createFailureResult('TOOL_FAILED', 'boom'), contexts: [] }),
  fail('dispatch', 'Listener "w" on seam "tools/execute" threw: boom'),
  // Raised by the call `cancelGrace` after its first ABORT (a delayed raise: the graph sends it instead).
  { type: 'CANCEL_GRACE_OVER' },
  { type: 'xstate.after.cancelGrace.toolCall.postExecute.reviewing' },
  done<PostExecuteOutput>('postExecute', { result: success, contexts: [context], blocked: false }),
  done<PostExecuteOutput>('postExecute', {
    result: createFailureResult('BLOCKED', 'no'),
    contexts: [],
    blocked: true,
  }),
  fail('postExecute', 'Listener "p" on seam "tools/post-execute" threw: boom'),
  done<FinalizeOutput>('finalize', { result: success }),
  fail('finalize', 'finalizeContent of tool "echo" threw: boom'),
  { type: 'RECORDED' },
  { type: 'COMMIT' },
  { type: 'ABORT' },
];

function presence(test: (key: (typeof toolSeamKeys)[number]) => boolean): ToolSeamsPresent {
  return Object.fromEntries(toolSeamKeys.map((key) => [key, test(key)])) as ToolSeamsPresent;
}
