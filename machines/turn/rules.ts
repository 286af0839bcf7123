import type { AnyActorRef } from 'xstate';
import { z } from 'zod';
import {
  type ContentBlock,
  ContentBlockSchema,
  type ContinuationDecision,
  describeThrown,
  FinishReasonSchema,
  type HookContext,
  type PromptDecision,
  type ToolCallBlock,
  type TurnEndReason,
  TurnFailureCode,
  toFailure,
  UsageSchema,
} from '../../kernel/index.js';
import { ModelRequestError, type ModelStep } from '../../model/index.js';
import type { InboxItem } from '../runtime/index.js';
import type { ToolBatchOutput } from '../toolBatch/index.js';
import type {
  ContinuationInput,
  ModelInput,
  PromptSubmitInput,
  Refusals,
  RequestErrorInput,
  RequestRetries,
  ScopedTurnInput,
  StepState,
  ToolBatchInput,
  TurnContext,
  TurnFailure,
  TurnInput,
  TurnOutput,
  TurnSeamInput,
} from './types.js';

/** The prompt-submit default: `allow` carrying the message's attached contexts. */
export function defaultPromptDecision(item: InboxItem): PromptDecision {
  return item.contexts.length > 0
    ? { kind: 'allow', additionalContexts: [...item.contexts] }
    : { kind: 'allow' };
}

/** The continuation default: continue when the step ran tools or drained steering after the batch. */
export function defaultContinuation(step: Pick<StepState, 'calls' | 'steered'>): ContinuationDecision {
  return step.calls.length > 0 || step.steered ? { action: 'continue' } : { action: 'stop' };
}

/** A failure at `step` (0 before the first step). */
export function toTurnFailure(step: number, error: unknown): TurnFailure {
  return { step, ...toFailure(error) };
}

/** The `turn/end` reason: an interruption wins, then a failure, a block, max-tokens, max-steps, completed. */
export function resolveTurnEndReason(context: TurnContext): TurnEndReason {
  if (context.cancel) return context.cancel.kind === 'disposed' ? { kind: 'disposed' } : { kind: 'aborted' };
  if (context.failure) return { kind: 'error', ...context.failure };
  if (context.rejected !== null) return { kind: 'rejected', reason: context.rejected };
  if (context.maxTokens) return { kind: 'max-tokens' };
  if (context.maxSteps) return { kind: 'max-steps', steps: context.step };
  if (context.stop) {
    const { decidedBy: _decidedBy, ...stop } = context.stop;
    return { kind: 'completed', ...stop };
  }
  return { kind: 'completed' };
}

const ModelStepSchema = z.object({
  content: z.array(ContentBlockSchema),
  finish: FinishReasonSchema,
  usage: UsageSchema.optional(),
});

function invalid(message: string): ModelRequestError {
  return new ModelRequestError({ message, code: TurnFailureCode.invalidResponse });
}

/** A validated answer: what `assistant/message` records and which calls the batch runs. */
export interface AcceptedAnswer {
  readonly content: ContentBlock[];
  readonly finish: ModelStep['finish'];
  readonly usage?: ModelStep['usage'];
  readonly calls: ToolCallBlock[];
}

/**
 * Validates a model step: malformed content, or duplicate/empty call ids, are `INVALID_RESPONSE`
 * failures; a `max-tokens` answer loses its tool-call blocks (they never run).
 */
export function acceptModelStep(raw: unknown): AcceptedAnswer {
  const parsed = ModelStepSchema.safeParse(raw);
  if (!parsed.success) {
    throw invalid(`The model answer is malformed: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  }
  const { finish, usage } = parsed.data;
  const truncated = finish === 'max-tokens';
  const content = truncated ? parsed.data.content.filter((b) => b.type !== 'tool-call') : parsed.data.content;
  const calls = content.filter((b): b is ToolCallBlock => b.type === 'tool-call');
  const seen = new Set<string>();
  for (const call of calls) {
    if (call.id === '') throw invalid(`The model answer has a tool call "${call.name}" with an empty id`);
    if (seen.has(call.id)) throw invalid(`The model answer repeats the tool call id "${call.id}"`);
    seen.add(call.id);
  }
  return usage === undefined ? { content, finish, calls } : { content, finish, usage, calls };
}

/** A batch failure as the turn's failure: the batch's own appends are the turn's appends. */
export function internalError(error: unknown): {
  message: string;
  code: typeof TurnFailureCode.internalError;
} {
  return { message: describeThrown(error), code: TurnFailureCode.internalError };
}

export function blockReason(decision: PromptDecision): string {
  return decision.kind === 'block' ? decision.reason : '';
}

/** The blocking decision's own contexts (recorded in the rejected turn; nothing else of the prompt survives). */
export function blockContexts(decision: PromptDecision): readonly HookContext[] {
  return decision.kind === 'block' ? (decision.additionalContexts ?? []) : [];
}

/** A step's state when it begins: no answer, no decision. */
export const freshStep: StepState = Object.freeze({
  calls: Object.freeze([]),
  steered: false,
  proceed: false,
  stoppedBy: undefined,
});

/** `step` with `change` applied, field by field (not `{ ...step, ...change }`: see `seamInputOf`). */
export function updateStep(step: StepState, change: Partial<StepState>): StepState {
  return {
    calls: change.calls ?? step.calls,
    steered: change.steered ?? step.steered,
    proceed: change.proceed ?? step.proceed,
    stoppedBy: 'stoppedBy' in change ? change.stoppedBy : step.stoppedBy,
  };
}

/** No failed request yet, or the last step succeeded. */
export const noRetries: RequestRetries = Object.freeze({ failures: 0, lastFailure: null });

/** A turn the store has refused nothing yet. */
const noRefusals: Refusals = { refused: null, rewritten: [], undrained: [] };

/** The turn's context when it starts: the input, step 0, empty FIFOs, nothing decided. */
export function initialTurnContext(input: ScopedTurnInput): TurnContext {
  const { resume } = input;
  // A resumed turn re-enters its step (`beginStep` counts it again) with the log's steering; a cancel
  // of the suspension drops that steering unless `keepInbox`.
  const cancel = resume?.cancel ?? null;
  const steering = resume === undefined ? [] : [...resume.steering];
  const dropSteering = cancel !== null && !cancel.keepInbox;
  return {
    input,
    step: resume === undefined ? 0 : resume.step - 1,
    stepOpen: false,
    stepFifo: [],
    thisStep: freshStep,
    steering: dropSteering ? [] : steering,
    dropped: dropSteering ? steering : [],
    held: [],
    maxTokens: false,
    maxSteps: false,
    answered: resume !== undefined,
    request: noRetries,
    failure: null,
    rejected: null,
    cancel: cancel?.cause ?? null,
    stop: null,
    endReason: null,
    resume: resume ?? null,
    refusals: noRefusals,
  };
}

/**
 * The turn's input with its run scope named: a turn whose input names none opens its own, keyed by
 * its session id (unique per system).
 * @param input the turn's input
 * @param sessionId the turn actor's session id
 */
export function scopedTurnInput(input: TurnInput, sessionId: string): ScopedTurnInput {
  // Named (the agent's turns): the input as it is, not a copy.
  if (input.scopeKey !== undefined) return input as ScopedTurnInput;
  return { ...input, scopeKey: `${sessionId}:scope`, ownsScope: true };
}

/** What the turn returns to the agent once it is flushed. */
export function toTurnOutput(context: TurnContext): TurnOutput {
  return {
    reason: context.endReason ?? resolveTurnEndReason(context),
    // Steering whose drain the store refused comes first: it arrived before what is still pending.
    leftoverSteering:
      context.refusals.undrained.length === 0
        ? context.steering
        : [...context.refusals.undrained, ...context.steering],
    droppedSteering: context.dropped,
    terminalStopped: context.stop !== null,
    heldInjections: context.held,
  };
}

/**
 * The input every turn seam actor gets: where it runs (scope, agent, turn, step). The inputs that add
 * to it spread it last: in V8 (Node 20) an object literal that starts with a spread and adds keys after
 * it gets a new hidden class every time (decision 24; the cost is in performance.md).
 */
export function seamInputOf({ context }: { context: TurnContext }): TurnSeamInput {
  const { scopeKey, agentId, turn } = context.input;
  return { scopeKey, agentId, turn, step: context.step };
}

export function promptSubmitInputOf({ context }: { context: TurnContext }): PromptSubmitInput {
  return { item: context.input.item, ...seamInputOf({ context }) };
}

export function modelInputOf({ context }: { context: TurnContext }): ModelInput {
  return { answered: context.answered, ...seamInputOf({ context }) };
}

export function toolBatchInputOf({
  context,
  self,
}: {
  context: TurnContext;
  self: AnyActorRef;
}): ToolBatchInput {
  const { scopeKey, turn, maxParallel } = context.input;
  const { resume } = context;
  const base = {
    parent: self,
    scopeKey,
    turn,
    step: context.step,
    calls: [...context.thisStep.calls],
    maxParallel,
  };
  // A resumed step's batch re-enters from the log's slots (aborted when the resume is a cancel).
  return resume === null
    ? base
    : { ...base, resume: { slots: resume.slots, aborted: resume.cancel !== null } };
}

export function continuationInputOf({ context }: { context: TurnContext }): ContinuationInput {
  return { defaultDecision: defaultContinuation(context.thisStep), ...seamInputOf({ context }) };
}

export function requestErrorInputOf({ context }: { context: TurnContext }): RequestErrorInput {
  return {
    error: context.request.lastFailure ?? { message: 'The model request failed' },
    priorFailures: context.request.failures - 1,
    ...seamInputOf({ context }),
  };
}

/** A failed batch as the turn's failure: the refused append it reports (`output.error`), or what killed it. */
export function batchFailureOf({ event }: { event: object }): { error: ReturnType<typeof internalError> } {
  const raw =
    'output' in event ? (event.output as ToolBatchOutput).error : (event as { error?: unknown }).error;
  return { error: internalError(raw) };
}
