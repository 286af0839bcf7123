import type { JsonValue } from './schemas.js';

/** One event of the session log (see session/ and docs/log.md). */
export interface LogEvent<TType extends string = string, TData = unknown> {
  readonly seq: number;
  readonly type: TType;
  readonly data: TData;
  readonly time: string;
}

/** A piece of a model answer as it streams in; the aggregated `assistant/message` stays the truth. */
export type ModelDelta =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'reasoning'; readonly text: string }
  | {
      readonly kind: 'tool-call';
      /** Position of the call in the answer (deltas of one call share it). */
      readonly index: number;
      readonly id?: string;
      readonly name?: string;
      readonly argumentsDelta: string;
    };

/** What `model/delta` carries: an adapter's delta, or `discard` once a step that streamed fails or is cancelled. */
export type StreamedDelta = ModelDelta | { readonly kind: 'discard' };

/** The part of the session log that plugins see on the agent handle. */
export interface AgentLogView {
  readonly events: readonly LogEvent[];
  subscribe(listener: (event: LogEvent) => void): () => void;
  /** Appends a plugin event type registered with `defineLogEvent`; refused for core types. */
  append(type: string, data: JsonValue): LogEvent;
  /** Resolves once everything appended so far is committed by the store (write-ahead, before a side effect). */
  readonly barrier?: (() => Promise<void>) | undefined;
}

/** What the model sees of one tool. */
export interface ToolSchema {
  readonly name: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
}
