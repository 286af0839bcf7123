import { z } from 'zod';

/** Plain JSON value: what crosses every boundary (log, hooks, decisions). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export const JsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.null(),
    z.boolean(),
    z.number().refine(Number.isFinite, 'Expected a finite number'),
    z.string(),
    z.array(JsonValueSchema),
    z.record(z.string(), JsonValueSchema),
  ]),
);

/** A plain JSON object: what a tool's input is once parsed, and what a rewrite must return. */
export type JsonObject = { [key: string]: JsonValue };
export const JsonObjectSchema: z.ZodType<JsonObject> = z.record(z.string(), JsonValueSchema);

export const TextBlockSchema = z.object({ type: z.literal('text'), text: z.string() });
export const ReasoningBlockSchema = z.object({ type: z.literal('reasoning'), text: z.string() });
export const ToolCallBlockSchema = z.object({
  type: z.literal('tool-call'),
  id: z.string(),
  name: z.string(),
  /** Raw JSON text from the model. */
  arguments: z.string(),
});
/** An image a tool returned (MCP `image`): base64 data and its MIME type. */
export const ImageBlockSchema = z.object({
  type: z.literal('image'),
  mimeType: z.string(),
  data: z.string(),
});
/** A link to a resource a tool returned (MCP `resource_link`), not its contents. */
export const ResourceLinkBlockSchema = z.object({
  type: z.literal('resource-link'),
  uri: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
});
export const ContentBlockSchema = z.discriminatedUnion('type', [
  TextBlockSchema,
  ReasoningBlockSchema,
  ToolCallBlockSchema,
  ImageBlockSchema,
  ResourceLinkBlockSchema,
]);
export type TextBlock = z.infer<typeof TextBlockSchema>;
export type ReasoningBlock = z.infer<typeof ReasoningBlockSchema>;
export type ToolCallBlock = z.infer<typeof ToolCallBlockSchema>;
export type ImageBlock = z.infer<typeof ImageBlockSchema>;
export type ResourceLinkBlock = z.infer<typeof ResourceLinkBlockSchema>;
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

export const MessageSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('user') }),
  z.object({ kind: z.literal('plugin'), plugin: z.string() }),
  z.object({
    kind: z.literal('hook'),
    dialect: z.enum(['claude-code', 'codex']),
    event: z.string(),
    /** The hook handler that authored it (logs written before milestone 3 have none). */
    handlerId: z.string().optional(),
  }),
]);
export type MessageSource = z.infer<typeof MessageSourceSchema>;

export const HookContextSchema = z.object({
  content: z.array(ContentBlockSchema),
  source: MessageSourceSchema,
  meta: JsonValueSchema.optional(),
});
/** A model-facing context recorded as its own `context/message`. */
export type HookContext = z.infer<typeof HookContextSchema>;

const contexts = z.array(HookContextSchema).optional();
/**
 * Who inside a listener made a decision, when the listener speaks for others (a hook bridge names
 * the hook handler): the log records it as the decider instead of the listener's name.
 */
const by = z.string().min(1).optional();

export const PromptDecisionSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('allow'),
    content: z.array(ContentBlockSchema).optional(),
    additionalContexts: contexts,
    by,
  }),
  // A block's own contexts are recorded in the rejected turn (so the next request sees them).
  z.object({ kind: z.literal('block'), reason: z.string(), additionalContexts: contexts, by }),
]);
export type PromptDecision = z.infer<typeof PromptDecisionSchema>;

export const PreToolDecisionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('allow'), additionalContexts: contexts }),
  z.object({ kind: z.literal('deny'), reason: z.string(), additionalContexts: contexts, by }),
  z.object({ kind: z.literal('ask'), reason: z.string().optional(), additionalContexts: contexts, by }),
]);
export type PreToolDecision = z.infer<typeof PreToolDecisionSchema>;

/**
 * A `tools/prepare` listener's answer: keep the input so far, or replace it whole (`undefined` = keep).
 * A rewrite's `arguments` are only required here; the fold checks them against the tool (plain JSON
 * object, parameter schema), so a bad rewrite is the listener's `INVALID_ARGS`, not a garbage decision.
 */
export const PrepareDecisionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('keep') }),
  z.object({
    kind: z.literal('rewrite'),
    arguments: z.custom<JsonObject>((value) => value !== undefined, 'Expected the rewritten arguments'),
    reason: z.string().optional(),
  }),
]);
export type PrepareDecision = z.infer<typeof PrepareDecisionSchema>;

/** Who rewrote a call's input, and why: what `tool/call.rewrites` and `exec.rewrites` list. */
export const RewriteRecordSchema = z.object({ by: z.string(), reason: z.string().optional() });
export type RewriteRecord = z.infer<typeof RewriteRecordSchema>;

// Two `accept` variants share a `kind`, so zod needs a plain union plus a refinement.
export const PostToolDecisionSchema = z
  .union([
    z.object({
      kind: z.literal('accept'),
      content: z.array(ContentBlockSchema).optional(),
      value: JsonValueSchema.optional(),
      additionalContexts: contexts,
      by,
    }),
    z.object({
      kind: z.literal('block'),
      feedback: z.array(ContentBlockSchema),
      additionalContexts: contexts,
      by,
    }),
  ])
  .refine((d) => !(d.kind === 'accept' && 'content' in d && d.content !== undefined && 'value' in d), {
    message: 'accept may replace content or value, not both',
  });
export type PostToolDecision =
  | {
      kind: 'accept';
      content?: ContentBlock[];
      value?: never;
      additionalContexts?: HookContext[];
      by?: string;
    }
  | { kind: 'accept'; value: JsonValue; content?: never; additionalContexts?: HookContext[]; by?: string }
  | { kind: 'block'; feedback: ContentBlock[]; additionalContexts?: HookContext[]; by?: string };

export const ContinuationDecisionSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('stop'), by }),
  z.object({
    action: z.literal('continue'),
    reason: z.object({ content: z.array(ContentBlockSchema), source: MessageSourceSchema }).optional(),
    by,
  }),
]);
export type ContinuationDecision = z.infer<typeof ContinuationDecisionSchema>;

export const ContinuationStopSchema = z.object({
  action: z.literal('stop'),
  reason: z.string().optional(),
  by,
});
export type ContinuationStop = z.infer<typeof ContinuationStopSchema>;

export const RequestErrorDecisionSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('fail') }),
  z.object({ action: z.literal('retry') }),
]);
export type RequestErrorDecision = z.infer<typeof RequestErrorDecisionSchema>;

export const SessionStartSourceSchema = z.enum(['startup', 'resume', 'clear', 'compact']);
export type SessionStartSource = z.infer<typeof SessionStartSourceSchema>;

export const ApprovalOutcomeSchema = z.enum([
  'allowed-once',
  'rejected',
  'cancelled',
  'unavailable',
  'deferred',
]);
export type ApprovalOutcome = z.infer<typeof ApprovalOutcomeSchema>;

/** What a `tools/approval` listener decides; `remember: 'tool'` asks the answerer to keep it for that tool. */
export const ApprovalDecisionSchema = z.object({
  outcome: z.enum(['allowed-once', 'rejected', 'deferred']),
  reason: z.string().optional(),
  remember: z.literal('tool').optional(),
  /** With `deferred`: when the request resolves `expired` if nobody answered (ISO 8601). */
  expiresAt: z.string().datetime({ offset: true }).optional(),
  by,
});
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/** What an approval channel answers: a plain outcome, or the object form with a reason. */
export const ApprovalAnswerSchema = z.union([
  ApprovalOutcomeSchema,
  z.object({
    outcome: ApprovalOutcomeSchema,
    reason: z.string().optional(),
    remember: z.literal('tool').optional(),
    /** With `deferred`: when the request resolves `expired` if nobody answered (ISO 8601). */
    expiresAt: z.string().datetime({ offset: true }).optional(),
  }),
]);
export type ApprovalAnswer = z.infer<typeof ApprovalAnswerSchema>;
/** The object form every answer is normalized to (the result of the `tools/approval` seam). */
export type ApprovalVerdict = Exclude<ApprovalAnswer, string>;

export const ToolErrorCodeSchema = z.enum([
  'DENIED',
  'BLOCKED',
  'UNKNOWN_TOOL',
  'INVALID_ARGS',
  'INVALID_TOOL_OUTPUT',
  'TOOL_FAILED',
  'TOOL_TIMEOUT',
  'ABORTED',
  'ABORTED_BEFORE_DISPATCH',
  'PIPELINE_ERROR',
  'TOOL_OUTCOME_UNKNOWN',
]);
export type ToolErrorCode = z.infer<typeof ToolErrorCodeSchema>;

export const ToolErrorSchema = z.object({
  code: ToolErrorCodeSchema,
  message: z.string(),
  note: z.string().optional(),
});
export type ToolError = z.infer<typeof ToolErrorSchema>;

/** A tool result's content was cut at the tool's `maxContentBytes`: `bytes` is the size before the cut. */
export const TruncationSchema = z.object({ bytes: z.number().int().nonnegative() });
export type Truncation = z.infer<typeof TruncationSchema>;

export const ToolResultSchema = z.union([
  z.object({
    isError: z.literal(false),
    value: JsonValueSchema,
    content: z.array(ContentBlockSchema),
    truncated: TruncationSchema.optional(),
    additionalContexts: contexts,
  }),
  z.object({
    isError: z.literal(true),
    error: ToolErrorSchema,
    content: z.array(ContentBlockSchema),
    truncated: TruncationSchema.optional(),
    additionalContexts: contexts,
  }),
]);
export type ToolResult = z.infer<typeof ToolResultSchema>;

/** The `{ message, code? }` shape of a model-request failure and of `agent/error`. */
export { type Failure, FailureSchema } from './failure.js';
