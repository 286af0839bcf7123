import type {
  AgentLogView,
  ApprovalAnswer,
  ApprovalDecision,
  ApprovalVerdict,
  ContentBlock,
  ContinuationDecision,
  ContinuationStop,
  CoreEventData,
  Failure,
  HookContext,
  JsonObject,
  JsonValue,
  LogEvent,
  MessageSource,
  PostToolDecision,
  PrepareDecision,
  PreToolDecision,
  PromptDecision,
  RequestErrorDecision,
  RewriteRecord,
  SessionStartSource,
  StreamedDelta,
  ToolResult,
} from '../kernel/index.js';
import type { SeamListenerError } from './errors.js';

/** `failed`: the session store failed a write or fsync; the agent takes nothing more (see storage.md). */
export type AgentStatus = 'idle' | 'running' | 'suspended' | 'disposed' | 'failed';
export type CancelCause = { kind: 'user' } | { kind: 'parent' } | { kind: 'disposed' };

export interface DeliveryOptions {
  /**
   * `followup` only: the caller's message id (1–128 of `[A-Za-z0-9._:-]`, never `m<number>`); a second
   * `followup` with an id the session already accepted is a no-op that returns it.
   */
  id?: string;
  source?: MessageSource;
  contexts?: HookContext[];
  meta?: JsonValue;
}

/** What an agent hands its tools about their environment (`exec.env`); read-only for tools. */
export interface ToolEnvironment {
  /**
   * Shell scripts a shell tool sources before each command, in order (Claude Code's
   * `CLAUDE_ENV_FILE`: `export PATH=…` lines written by SessionStart hooks).
   */
  readonly shellEnvFiles: readonly string[];
  /**
   * Variables a process started for this place gets (a shell hook, a Bash command): e.g. `TRACEPARENT`
   * of the call's span. Empty unless a plugin added a provider.
   */
  processEnvFor?(place: ProcessPlace): Readonly<Record<string, string>>;
}

/** Where a child process is started: the turn and the tool call it belongs to, when known. */
export interface ProcessPlace {
  readonly turn?: number | undefined;
  readonly callId?: string | undefined;
}

/** The agent-scoped environment channel: plugins add to it, tools read it through `exec.env`. */
export interface AgentEnvironment extends ToolEnvironment {
  /** Adds a shell env file (sourced by shell tools before each later command); duplicates are ignored. */
  addShellEnvFile(file: string): void;
  /** Adds variables for the processes started at a place (returns its removal). */
  addProcessEnv?(provider: (place: ProcessPlace) => Readonly<Record<string, string>> | undefined): () => void;
}

/** The agent handle every seam context carries (`ctx.agent`). */
export interface AgentHandle {
  readonly id: string;
  readonly status: AgentStatus;
  readonly log: AgentLogView;
  /** The environment channel to this agent's tools (absent on handles that do not offer one). */
  readonly env?: AgentEnvironment;
  followup(content: string | ContentBlock[], options?: DeliveryOptions): string;
  queue(content: string | ContentBlock[], options?: DeliveryOptions): string;
  steer(content: string | ContentBlock[], options?: DeliveryOptions): string;
  inject(content: string | ContentBlock[], options?: { source?: MessageSource; meta?: JsonValue }): void;
  cancel(cause?: CancelCause, options?: { keepInbox?: boolean }): void;
}

/** The sealed execution of one tool call (tools.md "Identity sealing"). */
export interface ToolExecution {
  readonly callId: string;
  readonly name: string;
  /** Deep-frozen JSON; a raw string when the model's text was not JSON. */
  readonly arguments: JsonValue;
  readonly agent?: AgentHandle;
  readonly turn?: number;
  readonly step?: number;
  /** The parent call's token, for nested calls. */
  readonly parent?: symbol;
  readonly token: symbol;
  readonly signal: AbortSignal;
  /** The model's input, when a `tools/prepare` listener rewrote it (`arguments` is then what runs). */
  readonly original?: JsonObject;
  /** Who rewrote the input, in order; present exactly when `original` is. */
  readonly rewrites?: readonly RewriteRecord[];
  /** The agent's environment for tools (live, read-only); absent for agent-less calls. */
  readonly env?: ToolEnvironment;
}

/** One rewrite a `tools/prepare` fold applied: who, why, and the whole input it produced. */
export interface PrepareStep extends RewriteRecord {
  readonly arguments: JsonObject;
}

/** What a `tools/prepare` listener sees: the input as rewritten so far, the model's, and every earlier step. */
export interface PrepareContext {
  readonly callId: string;
  readonly name: string;
  /** The input as rewritten so far (deep-frozen). */
  readonly arguments: JsonObject;
  /** The model's input (deep-frozen). */
  readonly original: JsonObject;
  readonly steps: readonly PrepareStep[];
  readonly agent?: AgentHandle;
  readonly turn?: number;
  readonly step?: number;
  readonly signal: AbortSignal;
}

/** What a tool body receives. */
export interface ToolRunContext extends ToolExecution {
  deferContext(context: HookContext): void;
}

export type SeamMode =
  | 'waterfall'
  | 'approval'
  | 'around'
  | 'fold'
  | 'serial'
  | 'notify'
  | 'awaited-notify'
  | 'first-result';

interface Turnish {
  readonly agent: AgentHandle;
  readonly turn: number;
  readonly signal: AbortSignal;
}

/** Context and result of every seam, keyed by seam name. */
export interface SeamMap {
  'agent/session-start': {
    mode: 'awaited-notify';
    ctx: { readonly agent: AgentHandle; readonly source: SessionStartSource; readonly signal: AbortSignal };
    result: void;
  };
  'agent/prompt-submit': {
    mode: 'waterfall';
    ctx: Turnish & { readonly content: readonly ContentBlock[]; readonly source: MessageSource };
    result: PromptDecision;
  };
  'agent/pre-step': { mode: 'serial'; ctx: Turnish & { readonly step: number }; result: void };
  'agent/post-step': { mode: 'serial'; ctx: Turnish & { readonly step: number }; result: void };
  'agent/request-error': {
    mode: 'waterfall';
    ctx: Turnish & { readonly step: number; readonly error: Failure; readonly priorFailures: number };
    result: RequestErrorDecision;
  };
  'agent/turn-continuation': {
    mode: 'waterfall';
    ctx: Turnish & { readonly step: number; readonly defaultDecision: ContinuationDecision };
    result: ContinuationDecision;
  };
  'agent/turn-stop': {
    mode: 'first-result';
    ctx: Turnish;
    result: ContinuationStop | undefined;
  };
  'tools/prepare': { mode: 'fold'; ctx: PrepareContext; result: PrepareDecision | undefined };
  'tools/pre-execute': { mode: 'waterfall'; ctx: ToolExecution; result: PreToolDecision };
  /** Answers an `ask` before the approval channel; `next()` falls through to the channel. */
  'tools/approval': {
    mode: 'approval';
    ctx: { readonly exec: ToolExecution; readonly reason?: string };
    result: ApprovalDecision;
  };
  'tools/execute': { mode: 'around'; ctx: ToolExecution; result: ToolResult };
  'tools/post-execute': {
    mode: 'waterfall';
    ctx: { readonly exec: ToolExecution; readonly result: ToolResult };
    result: PostToolDecision;
  };
  'tools/result': {
    mode: 'notify';
    ctx: { readonly exec: ToolExecution; readonly result: ToolResult };
    result: void;
  };
  /** Observe-only, never logged: one chunk of the open step's answer as the adapter reported it. */
  'model/delta': {
    mode: 'notify';
    ctx: {
      readonly agentId: string;
      readonly turn: number;
      readonly step: number;
      readonly delta: StreamedDelta;
    };
    result: void;
  };
  'agent/status': {
    mode: 'notify';
    ctx: { readonly agentId: string; readonly status: AgentStatus };
    result: void;
  };
  'agent/inbox/enqueue': {
    mode: 'notify';
    ctx: {
      readonly agentId: string;
      readonly id: string;
      readonly content: readonly ContentBlock[];
      readonly source: MessageSource;
      readonly steering: boolean;
      readonly wakeup: boolean;
    };
    result: void;
  };
  'agent/inbox/dequeue': {
    mode: 'notify';
    ctx: { readonly agentId: string; readonly id: string; readonly steering: boolean };
    result: void;
  };
  'agent/inbox/discard': {
    mode: 'notify';
    ctx: {
      readonly agentId: string;
      readonly items: readonly { readonly id: string; readonly steering: boolean }[];
    };
    result: void;
  };
  'agent/cancel-requested': {
    mode: 'notify';
    ctx: { readonly agentId: string; readonly cause: CancelCause };
    result: void;
  };
  /** A deferred approval was recorded (`approval/requested`): tell a person it waits for them. */
  'agent/approval-requested': {
    mode: 'notify';
    ctx: { readonly agentId: string; readonly request: CoreEventData<'approval/requested'> };
    result: void;
  };
  /** A deferred approval was answered (`approval/resolved`), by a person, an expiry or a cancel. */
  'agent/approval-resolved': {
    mode: 'notify';
    ctx: { readonly agentId: string; readonly resolution: CoreEventData<'approval/resolved'> };
    result: void;
  };
  'agent/error': {
    mode: 'notify';
    ctx: {
      readonly agentId: string;
      readonly turn?: number;
      readonly step?: number;
      readonly error: Failure;
      readonly origin: string;
    };
    result: void;
  };
  'seam/decided': {
    mode: 'notify';
    ctx: {
      readonly agentId?: string;
      readonly seam: DecidedSeamName;
      readonly decidedBy: string;
      readonly decision: JsonValue;
      /** `tools/prepare` only: every rewrite applied, in order. */
      readonly steps?: readonly PrepareStep[];
      readonly turn?: number;
      readonly callId?: string;
    };
    result: void;
  };
  'session/event': {
    mode: 'notify';
    ctx: { readonly agentId: string; readonly event: LogEvent };
    result: void;
  };
}

export type SeamName = keyof SeamMap;
export type SeamCtx<TName extends SeamName> = SeamMap[TName]['ctx'];
export type SeamResult<TName extends SeamName> = SeamMap[TName]['result'];
type NamesOfMode<TMode extends SeamMode> = {
  [K in SeamName]: SeamMap[K]['mode'] extends TMode ? K : never;
}[SeamName];
export type WaterfallSeamName = NamesOfMode<'waterfall'>;
/** Seams that report `seam/decided`: the waterfalls, `tools/approval` and the `tools/prepare` fold. */
export type DecidedSeamName = WaterfallSeamName | 'tools/approval' | 'tools/prepare';
export type SerialSeamName = NamesOfMode<'serial'>;
export type NotifySeamName = NamesOfMode<'notify'>;

/** Options of `next()` inside `tools/execute`: replace the signal for this one dispatch. */
export interface AroundNextOptions {
  signal?: AbortSignal;
}

/** The listener signature for one seam: `(ctx, next)` for chains, `(ctx)` for observers. */
export type Listener<TName extends SeamName> = SeamMap[TName]['mode'] extends 'waterfall'
  ? (
      ctx: SeamCtx<TName>,
      next: () => Promise<SeamResult<TName>>,
    ) => SeamResult<TName> | Promise<SeamResult<TName>>
  : SeamMap[TName]['mode'] extends 'approval'
    ? (
        ctx: SeamCtx<TName>,
        next: () => Promise<ApprovalVerdict>,
      ) => SeamResult<TName> | ApprovalVerdict | Promise<SeamResult<TName> | ApprovalVerdict>
    : SeamMap[TName]['mode'] extends 'around'
      ? (
          ctx: SeamCtx<TName>,
          next: (options?: AroundNextOptions) => Promise<ToolResult>,
        ) => ToolResult | Promise<ToolResult>
      : SeamMap[TName]['mode'] extends 'fold'
        ? (ctx: SeamCtx<TName>) => SeamResult<TName> | void | Promise<SeamResult<TName> | void>
        : SeamMap[TName]['mode'] extends 'first-result'
          ? (ctx: SeamCtx<TName>) => SeamResult<TName> | Promise<SeamResult<TName>>
          : SeamMap[TName]['mode'] extends 'notify'
            ? (ctx: SeamCtx<TName>) => void | Promise<void>
            : (ctx: SeamCtx<TName>) => void | Promise<void>;

/** A guard denies with a reason string or abstains with `undefined`. Synchronous. */
export type ToolGuard = (exec: ToolExecution) => string | undefined;

export interface ListenerOptions {
  /** Run outside every listener registered before (the last `prepend` is outermost). */
  prepend?: boolean;
  name?: string;
  /** Only for dispatches whose agent id is this one. */
  agent?: string;
}

export type Disposer = (() => void) & { [Symbol.dispose](): void };

export interface SeamPlugin {
  name: string;
  apply(seams: Seams): void | (() => void);
}

export interface ApprovalRequest {
  agent?: AgentHandle;
  toolName: string;
  callId: string;
  /** The turn and step of an agent's call (model call ids repeat across steps). */
  turn?: number;
  step?: number;
  arguments: JsonValue;
  reason?: string;
  signal: AbortSignal;
}
export interface ApprovalChannel {
  /** A plain outcome, or `{ outcome, reason?, remember? }` so a reason reaches the log and the model. */
  request(question: ApprovalRequest): Promise<ApprovalAnswer>;
}

export interface SeamLogger {
  error(message: string, details?: Record<string, unknown>): void;
  warn?(message: string, details?: Record<string, unknown>): void;
}

export interface WaterfallOutcome<TName extends WaterfallSeamName> {
  decision: SeamResult<TName>;
  /** Innermost listener whose returned object is the final decision, or `'default'`. */
  decidedBy: string;
}

/** Where a dispatch happens: which agent (for filtering) and extra fields for `seam/decided`. */
export interface DispatchScope {
  agentId?: string;
  turn?: number;
  callId?: string;
  signal?: AbortSignal;
  /** Called for each contained notify failure (the agent turns it into `agent/error`). */
  onContainedError?: (failure: { seam: SeamName; listener: string; error: unknown }) => void;
  /** Awaited notify only: called with each listener's name before it runs (`undefined` once all settled). */
  onListenerStart?: (listener: string | undefined) => void;
}

/**
 * How a fold checks one rewrite before the next listener sees it (the tool layer supplies it: plain
 * JSON, the tool's parameter schema); `value` is the detached, deep-frozen input to carry on.
 */
export type AcceptRewrite = (
  rawArguments: JsonObject,
) => { readonly ok: true; readonly value: JsonObject } | { readonly ok: false; readonly message: string };

/** The outcome of a `tools/prepare` fold; a failure keeps the input and steps applied before it. */
export type FoldOutcome =
  | {
      readonly ok: true;
      readonly arguments: JsonObject;
      readonly steps: readonly PrepareStep[];
      /** The last listener that rewrote, or `'default'`. */
      readonly decidedBy: string;
    }
  | {
      readonly ok: false;
      readonly arguments: JsonObject;
      readonly steps: readonly PrepareStep[];
      /** `INVALID_REWRITE` (the tool's schema refused it), `INVALID_DECISION` or `LISTENER_FAILED`. */
      readonly error: SeamListenerError;
    };

/**
 * An immutable snapshot of the listeners for one agent, taken when a turn or call starts:
 * listeners added later take effect from the next snapshot.
 */
export interface SeamSet {
  has(name: SeamName | 'guard'): boolean;
  /** Policy chain; validates each decision; rejects with `SeamListenerError` naming seam and listener. */
  waterfall<TName extends WaterfallSeamName>(
    name: TName,
    ctx: SeamCtx<TName>,
    defaultDecision: SeamResult<TName>,
    scope: DispatchScope,
  ): Promise<WaterfallOutcome<TName>>;
  /** `tools/execute`: onion over `core`; every `next()` dispatches again; a listener throw rejects (the caller normalizes). */
  around(
    exec: ToolExecution,
    core: (exec: ToolExecution) => Promise<ToolResult>,
    scope: DispatchScope,
  ): Promise<ToolResult>;
  /**
   * `tools/prepare`: listeners in order, each seeing the input so far; no `next()`. Listener failures
   * are returned, not thrown; an abort between listeners rejects with `SeamAbortError`.
   */
  fold(
    ctx: Omit<PrepareContext, 'arguments' | 'steps'>,
    accept: AcceptRewrite,
    scope: DispatchScope,
  ): Promise<FoldOutcome>;
  /** Awaited listeners in order; a throw rejects (turn error). */
  serial<TName extends SerialSeamName>(name: TName, ctx: SeamCtx<TName>, scope: DispatchScope): Promise<void>;
  /** `agent/turn-stop`: first non-undefined return wins. */
  firstResult(
    name: 'agent/turn-stop',
    ctx: SeamCtx<'agent/turn-stop'>,
    scope: DispatchScope,
  ): Promise<{ decision: ContinuationStop | undefined; decidedBy: string }>;
  /** `agent/session-start`: awaited, every failure contained and reported. */
  awaitedNotify(
    name: 'agent/session-start',
    ctx: SeamCtx<'agent/session-start'>,
    scope: DispatchScope,
  ): Promise<void>;
  /** `tools/approval`: the onion over `ask` (the channel, called only when the chain reaches it). */
  approval(
    ctx: SeamCtx<'tools/approval'>,
    ask: () => Promise<ApprovalVerdict>,
    scope: DispatchScope,
  ): Promise<{ decision: ApprovalVerdict; decidedBy: string }>;
  /** Guards in order; the first denial wins; a throwing guard throws `SeamListenerError`. */
  guards(exec: ToolExecution): { denied: string; by: string } | undefined;
}

export interface Seams {
  on<TName extends SeamName>(name: TName, listener: Listener<TName>, options?: ListenerOptions): Disposer;
  guard(fn: ToolGuard, options?: Omit<ListenerOptions, 'prepend'>): Disposer;
  use(plugin: SeamPlugin): Disposer;
  setApproval(channel?: ApprovalChannel): void;
  readonly approval: ApprovalChannel | undefined;
  /** Listener names in dispatch order (outermost first); `'guard'` lists guards. */
  listeners(name: SeamName | 'guard'): string[];
  /** A listener snapshot filtered to one agent (agent-less listeners always included). */
  snapshot(agentId?: string): SeamSet;
  /** Fire-and-forget notification; every failure is contained and reported. Synchronous dispatch. */
  notify<TName extends NotifySeamName>(name: TName, payload: SeamCtx<TName>, scope?: DispatchScope): void;
  readonly logger: SeamLogger;
}
