import type { InspectionEvent } from 'xstate';
import type { z } from 'zod';
import type { ContentBlock, JsonValue, ToolResult, ToolSchema } from '../kernel/index.js';
import type {
  AgentHandle,
  ApprovalChannel,
  Disposer,
  Seams,
  ToolExecution,
  ToolRunContext,
} from '../seams/index.js';

/** What a tool does, for clients that pick an icon (the Agent Client Protocol's tool kinds). */
export type ToolKind =
  | 'read'
  | 'edit'
  | 'delete'
  | 'move'
  | 'search'
  | 'execute'
  | 'think'
  | 'fetch'
  | 'switch_mode'
  | 'other';

export type Concurrency = 'exclusive' | 'parallel' | ((args: JsonValue) => boolean);

export interface ToolOutput<TValue extends JsonValue = JsonValue, TArgs = unknown> {
  schema?: z.ZodType<TValue>;
  /** Default: a string value becomes one text block, anything else its JSON text. */
  render?(value: TValue, args: TArgs): ContentBlock[];
}

export interface ToolDefinitionInput<TArgs = any, TValue extends JsonValue = JsonValue> {
  name: string;
  description: string;
  parameters: z.ZodType<TArgs>;
  output?: ToolOutput<TValue, TArgs>;
  execute(args: TArgs, exec: ToolRunContext): Promise<TValue> | TValue;
  /** Synchronous, total, content-only last word; `undefined` keeps the content. */
  finalizeContent?(exec: ToolExecution, result: ToolResult): ContentBlock[] | undefined;
  concurrency?: Concurrency;
  timeoutMs?: number;
  /** What the tool does (an ACP editor's icon); `'other'` when absent. */
  kind?: ToolKind;
  /**
   * The longest content a result keeps, in UTF-8 bytes of its texts (default 1 MiB): a longer one is cut,
   * the model sees a one-line note and `tool/result` records `truncated: { bytes }`.
   */
  maxContentBytes?: number;
}

/** A validated, frozen tool definition (what `defineTool` returns). */
export interface ToolDefinition<TArgs = any, TValue extends JsonValue = JsonValue>
  extends Readonly<ToolDefinitionInput<TArgs, TValue>> {
  readonly [toolBrand]: true;
}

/** Marks objects made by `defineTool` (a symbol, so it never clashes with a definition field). */
export const toolBrand: unique symbol = Symbol.for('seamchart.tool');

export interface ToolCallRequest {
  name: string;
  /** An object, or the model's raw JSON text. */
  arguments: unknown;
  callId?: string;
  agent?: AgentHandle;
  /** The parent call's token, for a call made from inside another tool's body. */
  parent?: symbol;
}

export interface ExecuteOptions {
  seams: Seams;
  signal?: AbortSignal;
  approval?: ApprovalChannel;
  cancelGraceMs?: number;
  /** XState's inspection observer: sees the call's toolCall chart as an actor (`@xstate.actor`, `.event`, `.snapshot`, `.microstep`). */
  inspect?: (event: InspectionEvent) => void;
}

/** Registration and lookup; what the machines need. */
export interface ToolRegistryCore {
  register(tool: ToolDefinition): Disposer;
  get(name: string): ToolDefinition | undefined;
  names(): string[];
  /** What the model sees: name, description, JSON Schema; lexicographic order. */
  schemas(): ToolSchema[];
}

/** The public registry: the core plus standalone execution through the toolCall machine. */
export interface ToolRegistry extends ToolRegistryCore {
  /** One call through the whole pipeline, standalone (no batch, no log). */
  /** Resolves the final frozen result (with `additionalContexts`); never rejects for a tool's failure. */
  execute(request: ToolCallRequest, options: ExecuteOptions): Promise<ToolResult>;
}
