import type { ContentBlock, LogEvent, ToolDecidedBy, TurnEndReason, UsageTotal } from '../kernel/index.js';
import type { Violation } from '../session/index.js';

/** How much of a text the page keeps (tool output, arguments, hook stderr): the page is read, not grepped. */
const TEXT_CAP = 2_000;
const SUMMARY_CAP = 160;

/** One hook process that ran (from `hook/invoked` + `hook/result`). */
export interface HookView {
  readonly handlerId: string;
  readonly event: string;
  readonly decision: string;
  readonly exitCode?: number;
  readonly durationMs: number;
  readonly output?: string;
  readonly notes: readonly string[];
  readonly seq: number;
}

/** One tool call: its request, who decided what, the hooks that ran, its result. */
export interface CallView {
  readonly key: string;
  readonly callId: string;
  readonly name: string;
  readonly turn: number;
  readonly step: number;
  readonly arguments: string;
  readonly original?: string;
  readonly rewrites: readonly { readonly by: string; readonly reason?: string }[];
  readonly startMs: number;
  readonly endMs: number;
  readonly isError: boolean;
  readonly errorCode?: string;
  readonly result: string;
  readonly decidedBy: ToolDecidedBy;
  readonly hooks: readonly HookView[];
  /** The toolCall chart states it went through (top-level keys), as far as the log tells. */
  readonly states: readonly string[];
  readonly seqCall: number;
  readonly seqResult?: number;
}

/** One model request of a step. */
export interface RequestView {
  readonly startMs: number;
  readonly endMs: number;
  readonly finish?: string;
  readonly text: string;
  readonly usage?: { readonly inputTokens?: number; readonly outputTokens?: number };
  readonly seq?: number;
}

export interface StepView {
  readonly step: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly request: RequestView;
  readonly calls: readonly CallView[];
}

/** A message that landed in a turn from somewhere other than the model: a context, steering, an injection. */
export interface NoteView {
  readonly kind: 'context' | 'steering' | 'prompt' | 'blocked';
  readonly seq: number;
  readonly text: string;
  readonly source: string;
  readonly decidedBy?: string;
  /** Where it landed: before step 1, or after step N. */
  readonly afterStep: number;
}

export interface TurnView {
  readonly turn: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly trigger: string;
  readonly prompt: string;
  readonly end: string;
  readonly endKind: string;
  readonly decidedBy?: string;
  readonly usage?: UsageTotal;
  readonly steps: readonly StepView[];
  readonly notes: readonly NoteView[];
  /** Hooks of the turn not tied to a call (UserPromptSubmit, Stop, …). */
  readonly hooks: readonly HookView[];
  readonly seqStart: number;
  readonly seqEnd?: number;
}

/** One line of the event list: `[seq, type, time offset ms, turn or 0, summary]`. */
export type EventRow = readonly [number, string, number, number, string];

/** Everything the page shows, derived once from the log. */
export interface InspectModel {
  readonly title: string;
  readonly sessionId?: string;
  readonly live: boolean;
  readonly startTime: string | undefined;
  readonly durationMs: number;
  readonly turns: readonly TurnView[];
  readonly events: readonly EventRow[];
  readonly violations: readonly {
    readonly seq: number | null;
    readonly invariant: string;
    readonly message: string;
  }[];
  readonly totals: {
    readonly calls: number;
    readonly steps: number;
    readonly inputTokens: number;
    readonly outputTokens: number;
  };
}

type Data = Record<string, unknown>;

/**
 * Derives what the inspector page shows from a session log: turns → steps → model requests and tool
 * calls with their times, deciders and hooks; the event list; the invariant violations.
 * @param events the session's events (as loaded, read-only)
 * @param options a title, the session id, whether it is still being written, the invariant check
 */
export function buildInspectModel(
  events: readonly LogEvent[],
  options: { title: string; sessionId?: string; live?: boolean; violations?: readonly Violation[] },
): InspectModel {
  const origin = events.length === 0 ? 0 : Date.parse(events[0]!.time);
  const at = (event: LogEvent): number => Date.parse(event.time) - origin;
  const turns: MutableTurn[] = [];
  const rows: EventRow[] = [];
  const calls = new Map<string, MutableCall>();
  // A call's PreToolUse hooks run (and are logged) before its `tool/call`: held until it appears.
  const earlyHooks = new Map<string, HookView[]>();
  let open: MutableTurn | undefined;
  let step: MutableStep | undefined;
  let lastMs = 0;
  for (const event of events) {
    const data = (event.data ?? {}) as Data;
    const ms = at(event);
    lastMs = Math.max(lastMs, ms);
    rows.push([event.seq, event.type, ms, open?.turn ?? 0, summarize(event.type, data)]);
    switch (event.type) {
      case 'turn/start': {
        const trigger = data.trigger as { kind: string } | undefined;
        open = newTurn(data.turn as number, ms, trigger?.kind ?? 'message', event.seq);
        turns.push(open);
        step = undefined;
        break;
      }
      case 'turn/end': {
        if (!open) break;
        const reason = data.reason as TurnEndReason;
        open.endMs = ms;
        open.end = describeEnd(reason);
        open.endKind = reason.kind;
        open.seqEnd = event.seq;
        if (typeof data.decidedBy === 'string') open.decidedBy = data.decidedBy;
        if (data.usage) open.usage = data.usage as UsageTotal;
        for (const s of open.steps) if (s.endMs < s.startMs) s.endMs = ms;
        open = undefined;
        step = undefined;
        break;
      }
      case 'user/message':
      case 'prompt/blocked': {
        if (!open) break;
        const text = textOf(data.content);
        open.prompt = text;
        if (event.type === 'prompt/blocked')
          open.notes.push(note('blocked', event, `${text} — blocked: ${String(data.reason)}`, data, open));
        else if (typeof data.decidedBy === 'string')
          open.notes.push(note('prompt', event, `rewritten to: ${text}`, data, open));
        break;
      }
      case 'context/message':
      case 'steering/message': {
        if (!open) break;
        const kind = event.type === 'context/message' ? 'context' : 'steering';
        open.notes.push(note(kind, event, textOf(data.content), data, open));
        break;
      }
      case 'step/start': {
        if (!open) break;
        step = {
          step: data.step as number,
          startMs: ms,
          endMs: -1,
          request: { startMs: ms, endMs: -1, text: '' },
          calls: [],
        };
        open.steps.push(step);
        break;
      }
      case 'step/end': {
        if (step) step.endMs = ms;
        if (step && step.request.endMs < 0) step.request.endMs = ms;
        step = undefined;
        break;
      }
      case 'assistant/message': {
        if (!step) break;
        const usage = data.usage as RequestView['usage'];
        step.request = {
          startMs: step.request.startMs,
          endMs: ms,
          finish: data.finish as string,
          text: cap(textOf(data.content), TEXT_CAP),
          ...(usage ? { usage } : {}),
          seq: event.seq,
        };
        break;
      }
      case 'tool/call': {
        if (!open || !step) break;
        const key = `${open.turn}/${String(data.callId)}`;
        const call: MutableCall = {
          key,
          callId: String(data.callId),
          name: String(data.name),
          turn: open.turn,
          step: step.step,
          arguments: cap(String(data.arguments), TEXT_CAP),
          ...(typeof data.original === 'string' ? { original: cap(data.original, TEXT_CAP) } : {}),
          rewrites: (data.rewrites as CallView['rewrites'] | undefined) ?? [],
          startMs: ms,
          endMs: ms,
          isError: false,
          result: '',
          decidedBy: {},
          hooks: earlyHooks.get(key) ?? [],
          states: [],
          seqCall: event.seq,
        };
        earlyHooks.delete(key);
        calls.set(key, call);
        step.calls.push(call);
        break;
      }
      case 'tool/result': {
        const call = open ? calls.get(`${open.turn}/${String(data.callId)}`) : undefined;
        if (!call) break;
        const error = data.error as { code?: string; message?: string } | undefined;
        call.endMs = ms;
        call.isError = data.isError === true;
        if (error?.code) call.errorCode = error.code;
        call.result = cap(textOf(data.content) || (error?.message ?? ''), TEXT_CAP);
        call.decidedBy = (data.decidedBy as ToolDecidedBy | undefined) ?? inferredDeciders(call);
        call.seqResult = event.seq;
        call.states = callStates(call);
        break;
      }
      case 'hook/result': {
        if (!open) break;
        const hook = hookView(event, data);
        const key = typeof data.callId === 'string' ? `${open.turn}/${data.callId}` : undefined;
        const call = key === undefined ? undefined : calls.get(key);
        if (call) {
          call.hooks.push(hook);
          if (call.seqResult !== undefined) call.states = callStates(call);
        } else if (key !== undefined) earlyHooks.set(key, [...(earlyHooks.get(key) ?? []), hook]);
        else open.hooks.push(hook);
        break;
      }
      default:
        break;
    }
  }
  for (const call of calls.values()) if (call.seqResult === undefined) call.states = callStates(call);
  const totals = { calls: calls.size, steps: 0, inputTokens: 0, outputTokens: 0 };
  for (const turn of turns) {
    totals.steps += turn.steps.length;
    totals.inputTokens += turn.usage?.inputTokens ?? 0;
    totals.outputTokens += turn.usage?.outputTokens ?? 0;
    if (turn.endMs < 0) turn.endMs = lastMs;
    for (const s of turn.steps) {
      if (s.endMs < 0) s.endMs = turn.endMs;
      if (s.request.endMs < 0) s.request.endMs = s.endMs;
    }
  }
  return {
    title: options.title,
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    live: options.live ?? false,
    startTime: events[0]?.time,
    durationMs: lastMs,
    turns,
    events: rows,
    violations: (options.violations ?? []).map((v) => ({
      seq: v.seq ?? null,
      invariant: v.invariant,
      message: v.message,
    })),
    totals,
  };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type MutableCall = Omit<Mutable<CallView>, 'hooks'> & { hooks: HookView[] };
type MutableStep = Omit<Mutable<StepView>, 'calls' | 'request'> & {
  calls: MutableCall[];
  request: Mutable<RequestView>;
};
type MutableTurn = Omit<Mutable<TurnView>, 'steps' | 'notes' | 'hooks'> & {
  steps: MutableStep[];
  notes: NoteView[];
  hooks: HookView[];
};

function newTurn(turn: number, ms: number, trigger: string, seq: number): MutableTurn {
  return {
    turn,
    startMs: ms,
    endMs: -1,
    trigger,
    prompt: '',
    end: 'still running',
    endKind: 'open',
    steps: [],
    notes: [],
    hooks: [],
    seqStart: seq,
  };
}

function note(
  kind: NoteView['kind'],
  event: LogEvent,
  text: string,
  data: Data,
  turn: MutableTurn,
): NoteView {
  return {
    kind,
    seq: event.seq,
    text: cap(text, TEXT_CAP),
    source: describeSource(data.source),
    ...(typeof data.decidedBy === 'string' ? { decidedBy: data.decidedBy } : {}),
    afterStep: turn.steps.length,
  };
}

function hookView(event: LogEvent, data: Data): HookView {
  const notes = Array.isArray(data.notes) ? (data.notes as string[]).map((n) => cap(n, SUMMARY_CAP * 2)) : [];
  return {
    handlerId: String(data.handlerId),
    event: String(data.event),
    decision: String(data.decision),
    ...(typeof data.exitCode === 'number' ? { exitCode: data.exitCode } : {}),
    durationMs: typeof data.durationMs === 'number' ? data.durationMs : 0,
    ...(typeof data.stderrSummary === 'string' ? { output: cap(data.stderrSummary, TEXT_CAP) } : {}),
    notes,
    seq: event.seq,
  };
}

/**
 * A log written before `decidedBy` existed: the hook whose logged decision matches the outcome is the
 * best witness of who decided (a native listener leaves no trace there).
 */
function inferredDeciders(call: MutableCall): ToolDecidedBy {
  const by = (event: string, decisions: readonly string[]): string | undefined =>
    call.hooks.find((hook) => hook.event === event && decisions.includes(hook.decision))?.handlerId;
  const preExecute =
    call.errorCode === 'DENIED' ? by('PreToolUse', ['deny', 'ask']) : by('PreToolUse', ['ask']);
  const postExecute = by('PostToolUse', ['block']);
  return {
    ...(preExecute === undefined ? {} : { preExecute }),
    ...(postExecute === undefined ? {} : { postExecute }),
  };
}

/** The toolCall chart's top-level states a call passed through, read from what the log shows of it. */
function callStates(call: MutableCall): string[] {
  const states = ['preparing'];
  const code = call.errorCode;
  if (code === 'INVALID_ARGS' || code === 'UNKNOWN_TOOL') return [...states, 'notifying', 'done'];
  states.push('sealing');
  const { decidedBy } = call;
  const preHooks = call.hooks.some((hook) => hook.event === 'PreToolUse');
  if (decidedBy.preExecute !== undefined || preHooks) states.push('preExecute');
  if (decidedBy.approval !== undefined || call.hooks.some((hook) => hook.event === 'PermissionRequest'))
    states.push('awaitingApproval');
  if (code === 'DENIED' && decidedBy.approval === undefined && decidedBy.guard === undefined)
    return [...states, 'notifying', 'done'];
  if (decidedBy.approval !== undefined && code === 'DENIED') return [...states, 'notifying', 'done'];
  states.push('guards');
  if (decidedBy.guard !== undefined) return [...states, 'notifying', 'done'];
  states.push('dispatching', 'settled');
  if (decidedBy.postExecute !== undefined || call.hooks.some((hook) => hook.event === 'PostToolUse'))
    states.push('postExecute');
  states.push('finalizing', 'notifying', 'done');
  return states;
}

function describeEnd(reason: TurnEndReason): string {
  switch (reason.kind) {
    case 'completed':
      return reason.stoppedBy === undefined
        ? 'completed'
        : `stopped by ${reason.stoppedBy}${reason.stopReason === undefined ? '' : `: ${reason.stopReason}`}`;
    case 'rejected':
      return `rejected: ${reason.reason}`;
    case 'error':
      return `error${reason.code === undefined ? '' : ` ${reason.code}`}: ${reason.message}`;
    case 'max-steps':
      return `max steps (${reason.steps})`;
    default:
      return reason.kind;
  }
}

function describeSource(source: unknown): string {
  const s = (source ?? {}) as {
    kind?: string;
    plugin?: string;
    dialect?: string;
    event?: string;
    handlerId?: string;
  };
  if (s.kind === 'plugin') return `plugin ${s.plugin ?? ''}`.trim();
  if (s.kind === 'hook') return s.handlerId ?? `${s.dialect ?? 'hook'} ${s.event ?? ''}`.trim();
  return s.kind ?? 'unknown';
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return (content as ContentBlock[])
    .map((block) =>
      block.type === 'text' || block.type === 'reasoning'
        ? block.text
        : block.type === 'image'
          ? `[image ${block.mimeType}]`
          : block.type === 'resource-link'
            ? `[resource link ${block.uri}]`
            : `[call ${block.name}]`,
    )
    .join('\n');
}

function cap(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters)`;
}

/** One line saying what an event is, for the event list. */
function summarize(type: string, data: Data): string {
  const text = (): string => cap(textOf(data.content).replace(/\s+/g, ' '), SUMMARY_CAP);
  switch (type) {
    case 'turn/start':
      return `turn ${String(data.turn)}`;
    case 'turn/end':
      return `turn ${String(data.turn)}: ${describeEnd(data.reason as TurnEndReason)}`;
    case 'step/start':
    case 'step/end':
      return `step ${String(data.step)}`;
    case 'tool/call':
      return `${String(data.name)} ${String(data.callId)} ${cap(String(data.arguments), SUMMARY_CAP)}`;
    case 'tool/result': {
      const error = data.error as { code?: string } | undefined;
      return `${String(data.callId)} ${data.isError === true ? `✗ ${error?.code ?? 'error'}` : '✓'} ${text()}`;
    }
    case 'hook/invoked':
      return `${String(data.handlerId)}${data.callId === undefined ? '' : ` for ${String(data.callId)}`}`;
    case 'hook/result':
      return `${String(data.handlerId)}${data.callId === undefined ? '' : ` for ${String(data.callId)}`} → ${String(data.decision)}${typeof data.exitCode === 'number' ? ` (exit ${data.exitCode})` : ''}`;
    case 'prompt/blocked':
      return `${text()} — ${String(data.reason)}`;
    default:
      return 'content' in data ? text() : cap(JSON.stringify(data), SUMMARY_CAP);
  }
}
