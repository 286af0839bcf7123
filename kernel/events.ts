import { z } from 'zod';
import {
  ContentBlockSchema,
  HookContextSchema,
  JsonValueSchema,
  MessageSourceSchema,
  RewriteRecordSchema,
  ToolErrorSchema,
  TruncationSchema,
} from './schemas.js';

const turn = z.number().int().positive();
const step = z.number().int().positive();
const content = z.array(ContentBlockSchema);

export const TurnEndReasonSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('completed'),
    stoppedBy: z.string().optional(),
    stopReason: z.string().optional(),
  }),
  z.object({ kind: z.literal('max-tokens') }),
  z.object({ kind: z.literal('max-steps'), steps: z.number().int().positive() }),
  z.object({ kind: z.literal('rejected'), reason: z.string() }),
  z.object({
    kind: z.literal('error'),
    step: z.number().int().nonnegative(),
    message: z.string(),
    code: z.string().optional(),
  }),
  z.object({ kind: z.literal('aborted') }),
  z.object({ kind: z.literal('disposed') }),
  z.object({ kind: z.literal('interrupted') }),
]);
export type TurnEndReason = z.infer<typeof TurnEndReasonSchema>;

/** Why accepted inbox items were dropped. */
export const InboxDiscardCauseSchema = z.enum(['cancel', 'terminal-stop', 'dispose', 'max-steps']);
export type InboxDiscardCause = z.infer<typeof InboxDiscardCauseSchema>;

/** How a deferred approval request was answered: `expired` and `cancelled` are denials the agent writes itself. */
export const ApprovalResolutionOutcomeSchema = z.enum(['allowed-once', 'rejected', 'expired', 'cancelled']);
export type ApprovalResolutionOutcome = z.infer<typeof ApprovalResolutionOutcomeSchema>;

export const FinishReasonSchema = z.enum(['stop', 'tool-calls', 'max-tokens']);
export type FinishReason = z.infer<typeof FinishReasonSchema>;

const tokens = z.number().int().nonnegative();

export const UsageSchema = z.object({
  inputTokens: tokens.optional(),
  outputTokens: tokens.optional(),
  reasoningTokens: tokens.optional(),
  cachedInputTokens: tokens.optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

/** A sum of step usages: the two main counts are always present. */
export const UsageTotalSchema = z.object({
  inputTokens: tokens,
  outputTokens: tokens,
  reasoningTokens: tokens.optional(),
  cachedInputTokens: tokens.optional(),
});
export type UsageTotal = z.infer<typeof UsageTotalSchema>;

/** Who made each decision of a call that changed something (a listener's name or a hook handler id). */
export const ToolDecidedBySchema = z.object({
  preExecute: z.string().optional(),
  approval: z.string().optional(),
  guard: z.string().optional(),
  postExecute: z.string().optional(),
});
export type ToolDecidedBy = z.infer<typeof ToolDecidedBySchema>;

/** Who made the decision an event records (absent for defaults and pass-throughs, and in older logs). */
const decidedBy = z.string().optional();

/** zod schema of each core event type's `data`. */
export const coreEventSchemas = {
  'turn/start': z.object({
    turn,
    trigger: z.object({
      kind: z.enum(['message', 'injection']),
      source: MessageSourceSchema,
      /** The claimed inbox item (message turns written since the durable inbox). */
      itemId: z.string().optional(),
    }),
  }),
  'turn/end': z.object({
    turn,
    reason: TurnEndReasonSchema,
    usage: UsageTotalSchema.optional(),
    decidedBy,
  }),
  'user/message': z.object({
    content,
    source: MessageSourceSchema,
    meta: JsonValueSchema.optional(),
    decidedBy,
  }),
  'prompt/blocked': z.object({ content, source: MessageSourceSchema, reason: z.string(), decidedBy }),
  'context/message': z.object({ content, source: MessageSourceSchema, meta: JsonValueSchema.optional() }),
  'steering/message': z.object({
    turn,
    content,
    source: MessageSourceSchema,
    meta: JsonValueSchema.optional(),
    itemId: z.string().optional(),
    decidedBy,
  }),
  'step/start': z.object({ turn, step }),
  'step/end': z.object({ turn, step }),
  'assistant/message': z.object({
    turn,
    step,
    content,
    finish: FinishReasonSchema,
    usage: UsageSchema.optional(),
  }),
  // `arguments` is what runs; when a `tools/prepare` listener rewrote it, `original` is the model's text.
  'tool/call': z.object({
    turn,
    step,
    callId: z.string(),
    name: z.string(),
    arguments: z.string(),
    original: z.string().optional(),
    rewrites: z.array(RewriteRecordSchema).optional(),
  }),
  'tool/result': z.object({
    turn,
    step,
    callId: z.string(),
    content,
    isError: z.boolean(),
    error: ToolErrorSchema.optional(),
    // Optional: logs written before tool results were bounded have no such field.
    truncated: TruncationSchema.optional(),
    decidedBy: ToolDecidedBySchema.optional(),
  }),
  // The durable inbox: log-only, written by the delivery methods themselves, allowed outside turns.
  'inbox/accepted': z.object({
    id: z.string().min(1),
    content,
    source: MessageSourceSchema,
    meta: JsonValueSchema.optional(),
    contexts: z.array(HookContextSchema).optional(),
    steering: z.boolean(),
    wakeup: z.boolean(),
  }),
  'inbox/discarded': z.object({
    ids: z.array(z.string().min(1)).min(1),
    cause: InboxDiscardCauseSchema,
  }),
  // Deferred approvals (approvals.md): log-only, never model-visible.
  'approval/requested': z.object({
    requestId: z.string().min(1),
    callId: z.string(),
    turn,
    step,
    tool: z.string(),
    /** The sealed effective input (after `tools/prepare`). */
    arguments: JsonValueSchema,
    /** SHA-256 (hex) of the RFC 8785 canonical JSON of `arguments`. */
    argsHash: z.string().regex(/^[0-9a-f]{64}$/),
    reason: z.string().optional(),
    askedBy: z.string(),
    expiresAt: z.string().datetime({ offset: true }).optional(),
  }),
  'approval/resolved': z.object({
    requestId: z.string().min(1),
    outcome: ApprovalResolutionOutcomeSchema,
    reason: z.string().optional(),
    by: z.string().optional(),
    argsHash: z.string().regex(/^[0-9a-f]{64}$/),
  }),
  'turn/suspended': z.object({
    turn,
    step,
    pending: z.array(z.string().min(1)).min(1),
    held: z.array(z.string()),
    notStarted: z.array(z.string()),
    contexts: z.array(HookContextSchema),
  }),
  'turn/resumed': z.object({ turn, step }),
  // A context `inject()`ed while the turn is suspended: it joins the step's held contexts.
  'turn/held-context': z.object({ turn, step, context: HookContextSchema }),
} as const;

export type CoreEventType = keyof typeof coreEventSchemas;
export type CoreEventData<TType extends CoreEventType> = z.infer<(typeof coreEventSchemas)[TType]>;
export const coreEventTypes = Object.keys(coreEventSchemas) as CoreEventType[];

/** Event type names as constants, so no literal is scattered through the machines. */
export const EventType = {
  turnStart: 'turn/start',
  turnEnd: 'turn/end',
  userMessage: 'user/message',
  promptBlocked: 'prompt/blocked',
  contextMessage: 'context/message',
  steeringMessage: 'steering/message',
  stepStart: 'step/start',
  stepEnd: 'step/end',
  assistantMessage: 'assistant/message',
  toolCall: 'tool/call',
  toolResult: 'tool/result',
  inboxAccepted: 'inbox/accepted',
  inboxDiscarded: 'inbox/discarded',
  approvalRequested: 'approval/requested',
  approvalResolved: 'approval/resolved',
  turnSuspended: 'turn/suspended',
  turnResumed: 'turn/resumed',
  turnHeldContext: 'turn/held-context',
} as const satisfies Record<string, CoreEventType>;

/** Whether an event type is one of the durable inbox's log-only events (allowed anywhere, never model-visible). */
export function isInboxEventType(type: string): type is 'inbox/accepted' | 'inbox/discarded' {
  return type === 'inbox/accepted' || type === 'inbox/discarded';
}

/** The log-only events of deferred approvals and suspended turns: inside a turn, never model-visible. */
export function isApprovalEventType(
  type: string,
): type is
  | 'approval/requested'
  | 'approval/resolved'
  | 'turn/suspended'
  | 'turn/resumed'
  | 'turn/held-context' {
  return (
    type === 'approval/requested' ||
    type === 'approval/resolved' ||
    type === 'turn/suspended' ||
    type === 'turn/resumed' ||
    type === 'turn/held-context'
  );
}

/** The line format of a stored event: `{ seq, type, data, time }`. */
export const StoredEventSchema = z.object({
  seq: z.number().int().nonnegative(),
  type: z.string().min(1),
  data: JsonValueSchema,
  time: z.string(),
});

/** A core event before the log gives it a `seq` and a `time` (what `repairEvents` returns). */
export type CoreEventDraft = {
  [TType in CoreEventType]: { readonly type: TType; readonly data: CoreEventData<TType> };
}[CoreEventType];
