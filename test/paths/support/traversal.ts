import { type AnyStateMachine, assign } from 'xstate';
import type { AgentContext } from '../../../machines/agent/types.js';
import { agentMachine } from '../../../machines/agent.js';
import type { InboxItem } from '../../../machines/runtime/index.js';
import { callIndexOf } from '../../../machines/toolBatch/rules.js';
import type { CallWait, ToolBatchContext } from '../../../machines/toolBatch/types.js';
import { toolBatchMachine } from '../../../machines/toolBatch.js';
import type { ScopedTurnInput } from '../../../machines/turn/index.js';
import { turnMachine } from '../../../machines/turn.js';

// Graph traversal (`xstate/graph`, pure `transition`) runs no custom action, but it resolves the
// enqueueActions ones, whose side effects need a run's services. These stand-ins replace them for
// traversal only (what a path executes is the real logic): a no-op, or the context update they make.

/** The names of a machine's actions resolved while a transition is computed (enqueueActions). */
function resolvedActions(machine: AnyStateMachine, keep: readonly string[]): string[] {
  const actions = machine.implementations.actions as Record<string, { type?: string }>;
  return Object.keys(actions).filter(
    (name) => actions[name]?.type === 'xstate.enqueueActions' && !keep.includes(name),
  );
}

const noOps = (names: readonly string[]): Record<string, () => void> =>
  Object.fromEntries(names.map((name) => [name, () => {}]));

/** The turn for traversal: its logged effects are no-ops (the graph sends their outcomes). */
export const traversableTurnMachine = turnMachine.provide({
  actions: noOps(resolvedActions(turnMachine, [])) as never,
});

/** The batch for traversal: a parked call frees its lane and waits with the request it reported. */
export const traversableToolBatchMachine = toolBatchMachine.provide({
  actions: {
    // `recordReport` dispatches by name: a pure choice, kept.
    ...noOps(resolvedActions(toolBatchMachine, ['recordReport'])),
    recordParked: assign(({ context, event }: { context: ToolBatchContext; event: unknown }) =>
      markParked(context, event),
    ),
  } as never,
});

/** The agent for traversal: a claimed item becomes a turn input with no scope opened. */
export const traversableAgentMachine = agentMachine.provide({
  actions: {
    ...noOps(resolvedActions(agentMachine, [])),
    openTurnScope: assign(({ context }: { context: AgentContext }) => {
      const [item] = context.queued;
      return { current: item ? turnInputOf(context, item) : null };
    }),
  } as never,
});

function markParked(context: ToolBatchContext, event: unknown): Partial<ToolBatchContext> {
  const index = callIndexOf(context, event);
  if (index === null) return {};
  const request = (event as { request?: { requestId: string | null; answered: boolean } }).request;
  const wait: CallWait = {
    kind: 'parked',
    requestId: request?.requestId ?? '',
    answered: request?.answered ?? false,
  };
  return {
    waiting: context.waiting.map((w, i) => (i === index ? wait : w)),
    preparing: context.preparing === index ? null : context.preparing,
  };
}

function turnInputOf(context: AgentContext, item: InboxItem): ScopedTurnInput {
  return {
    scopeKey: `${context.agentId}:turn`,
    agentId: context.agentId,
    turn: 1,
    item,
    seamsPresent: {
      'agent/prompt-submit': false,
      'agent/pre-step': false,
      'agent/post-step': false,
      'agent/request-error': false,
      'agent/turn-continuation': false,
      'agent/turn-stop': false,
    },
    maxRequestRetries: 3,
    maxParallel: 10,
    maxStepsPerTurn: 100,
  };
}
