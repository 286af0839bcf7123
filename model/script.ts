import { z } from 'zod';
import {
  describeReceived,
  FailureSchema,
  FinishReasonSchema,
  JsonValueSchema,
  UsageSchema,
} from '../kernel/index.js';

const delayMs = z.number().nonnegative().max(2_147_483_647).optional();

export const ScriptToolCallSchema = z.strictObject({
  // Empty or duplicate ids stay allowed: scripts use them to exercise the turn's INVALID_RESPONSE path.
  id: z.string(),
  name: z.string(),
  /** An object is sent as its JSON text; a string is passed through raw (it may be invalid JSON on purpose). */
  arguments: z.union([z.string(), z.record(z.string(), JsonValueSchema)]),
});

export const ScriptReplyStepSchema = z
  .strictObject({
    text: z.string().optional(),
    /** How `text` is streamed; joined, the chunks must equal `text` (default: split before each word). */
    chunks: z.array(z.string()).optional(),
    /** A pause before each streamed chunk after the first, e.g. to watch a demo stream. */
    chunkDelayMs: delayMs,
    reasoning: z.string().optional(),
    toolCalls: z.array(ScriptToolCallSchema).optional(),
    finish: FinishReasonSchema.optional(),
    usage: UsageSchema.optional(),
    delayMs,
  })
  .refine((step) => step.text !== undefined || step.toolCalls !== undefined, {
    message: 'Expected a reply step to have `text` or `toolCalls` (or use `error` or `hang`)',
  })
  .refine((step) => step.chunks === undefined || step.chunks.join('') === (step.text ?? ''), {
    message: 'Expected the `chunks` of a reply step to join to its `text`',
    path: ['chunks'],
  });

export const ScriptErrorStepSchema = z.strictObject({ error: FailureSchema, delayMs });

export const ScriptHangStepSchema = z.strictObject({ hang: z.literal(true), delayMs });

/** One scripted assistant step: a reply, a model failure, or a request that hangs until aborted. */
export const ScriptStepSchema = z.union([ScriptReplyStepSchema, ScriptErrorStepSchema, ScriptHangStepSchema]);

export type ScriptToolCall = z.infer<typeof ScriptToolCallSchema>;
export type ScriptReplyStep = z.infer<typeof ScriptReplyStepSchema>;
export type ScriptErrorStep = z.infer<typeof ScriptErrorStepSchema>;
export type ScriptHangStep = z.infer<typeof ScriptHangStepSchema>;
export type ScriptStep = z.infer<typeof ScriptStepSchema>;

/**
 * Validates a model script (e.g. a parsed JSON file) and returns its steps.
 * @param rawScript - the unvalidated list of steps
 * @throws TypeError naming the first bad step's index and what is wrong with it
 */
export function parseScript(rawScript: unknown): ScriptStep[] {
  if (!Array.isArray(rawScript)) {
    throw new TypeError(
      `Expected the model script to be an array of steps, got ${describeReceived(rawScript)}`,
    );
  }
  return rawScript.map((rawStep: unknown, index) => {
    const result = selectStepSchema(rawStep).safeParse(rawStep);
    if (result.success) return result.data;
    throw new TypeError(`Invalid model script step ${index}: ${formatIssues(result.error)}`, {
      cause: result.error,
    });
  });
}

// Picking the variant by its key gives "what is wrong with this error step" instead of zod's bare "Invalid input" for a union.
function selectStepSchema(rawStep: unknown): z.ZodType<ScriptStep> {
  if (typeof rawStep === 'object' && rawStep !== null && !Array.isArray(rawStep)) {
    if ('error' in rawStep) return ScriptErrorStepSchema;
    if ('hang' in rawStep) return ScriptHangStepSchema;
  }
  return ScriptReplyStepSchema;
}

function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) =>
      issue.path.length > 0 ? `at \`${formatPath(issue.path)}\`: ${issue.message}` : issue.message,
    )
    .join('; ');
}

function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`))
    .join('');
}
