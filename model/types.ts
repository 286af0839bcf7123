import type { ContentBlock, Failure, FinishReason, ModelDelta, ToolSchema, Usage } from '../kernel/index.js';
import type { ModelSettings } from './settings.js';

/** One message of a model request, derived from the log. */
export type ModelMessage =
  | { readonly role: 'user'; readonly content: readonly ContentBlock[] }
  | { readonly role: 'assistant'; readonly content: readonly ContentBlock[] }
  | {
      readonly role: 'tool';
      readonly callId: string;
      readonly content: readonly ContentBlock[];
      readonly isError: boolean;
    };

/** What the turn hands the adapter: the derived messages, the tools, and the turn's abort signal. */
export interface ModelRequest {
  readonly messages: readonly ModelMessage[];
  readonly tools: readonly ToolSchema[];
  readonly signal: AbortSignal;
  /** The system prompt; adapters send it before every message. */
  readonly instructions?: string;
  /** The adapter's settings merged with the agent's (the agent's win). */
  readonly settings?: ModelSettings;
  /** Called for each chunk as it arrives (the turn makes it a `model/delta` notification). */
  readonly onDelta?: (delta: ModelDelta) => void;
}

/** One aggregated assistant step (streaming stays inside the adapter). */
export interface ModelStep {
  readonly content: ContentBlock[];
  readonly finish: FinishReason;
  readonly usage?: Usage;
}

/** Codes the bundled adapters give a `ModelRequestError` (plus `HTTP_<status>` for other HTTP failures). */
export const ModelErrorCode = {
  aborted: 'ABORTED',
  scriptExhausted: 'SCRIPT_EXHAUSTED',
  rateLimit: 'RATE_LIMIT',
  auth: 'AUTH',
  network: 'NETWORK',
  streamInterrupted: 'STREAM_INTERRUPTED',
  invalidResponse: 'INVALID_RESPONSE',
  providerError: 'PROVIDER_ERROR',
  instructionsFailed: 'INSTRUCTIONS_FAILED',
} as const;
export type ModelErrorCode = (typeof ModelErrorCode)[keyof typeof ModelErrorCode];

/** A failed model request: `{ message, code? }`; the code becomes `turn/end.reason.code`. */
export class ModelRequestError extends Error {
  override readonly name = 'ModelRequestError';
  readonly code: string | undefined;
  /** The server's `retry-after`, in ms, when it sent one. */
  readonly retryAfterMs: number | undefined;
  constructor(failure: Failure, options?: { cause?: unknown }) {
    super(failure.message, options);
    this.code = failure.code;
    this.retryAfterMs = failure.retryAfterMs;
  }
}

export interface ModelAdapter {
  /** Default settings of this adapter; the agent's `modelSettings` override them per key. */
  readonly settings?: ModelSettings;
  /** Resolves with one step or rejects with a `ModelRequestError` (or anything: normalized by the turn). */
  request(request: ModelRequest): Promise<ModelStep>;
}
