import type { LogEvent } from '../index.js';
import type { Screen } from './screen.js';

type Block = { type: string; text?: string; name?: string; arguments?: string };
type Data = Record<string, unknown>;

/** A streamed piece of the model's answer (`model/delta`, see model-io.md). */
export type TranscriptDelta =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'tool-call'; index: number; id?: string; name?: string; argumentsDelta: string }
  | { kind: 'discard' };

/** What one waterfall decided, as `seam/decided` reports it. */
export interface TranscriptDecision {
  seam: string;
  decidedBy: string;
  decision: unknown;
  callId?: string;
}

const RESULT_LINES = 3;
const LINE_WIDTH = 160;

function clip(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

function textOf(blocks: unknown, type = 'text'): string {
  return ((blocks as Block[] | undefined) ?? [])
    .filter((b) => b.type === type)
    .map((b) => b.text ?? '')
    .join('');
}

/** The one argument a person recognises a call by (Claude Code's tool shapes), else compact JSON. */
export function shortArguments(raw: unknown): string {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      return clip(raw, 60);
    }
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const key of ['command', 'file_path', 'path', 'pattern', 'url', 'query']) {
      if (typeof record[key] === 'string') return clip(record[key] as string, 60);
    }
    if (Object.keys(record).length === 0) return '';
  }
  return clip(JSON.stringify(value) ?? '', 60);
}

/**
 * A result's text as a person reads it: a shell result's output rather than its JSON envelope, and
 * how the command ended when that was not a clean exit (`exit 2`, `timed out`, `killed by SIGKILL`).
 */
export function resultText(text: string): { text: string; ended?: string } {
  if (!text.startsWith('{')) return { text };
  try {
    const value = JSON.parse(text) as {
      stdout?: unknown;
      stderr?: unknown;
      exitCode?: unknown;
      signal?: unknown;
      timedOut?: unknown;
      notes?: unknown;
    };
    if (typeof value.stdout !== 'string') return { text };
    const stderr = typeof value.stderr === 'string' ? value.stderr : '';
    const notes = Array.isArray(value.notes)
      ? value.notes.filter((n): n is string => typeof n === 'string')
      : [];
    const output = [value.stdout.replace(/\n+$/, ''), stderr.replace(/\n+$/, ''), ...notes]
      .filter((p) => p !== '')
      .join('\n');
    const ended =
      value.timedOut === true
        ? 'timed out'
        : typeof value.exitCode === 'number' && value.exitCode !== 0
          ? `exit ${value.exitCode}`
          : typeof value.signal === 'string'
            ? `killed by ${value.signal}`
            : undefined;
    return ended === undefined ? { text: output } : { text: output, ended };
  } catch {
    return { text };
  }
}

/** The first lines of a result, then `… +N lines`. */
export function summariseLines(text: string, max = RESULT_LINES): string[] {
  const lines = text.replace(/\n+$/, '').split('\n');
  if (lines.length === 1 && lines[0] === '') return ['(no output)'];
  const shown = lines.slice(0, max).map((line) => clip(line, LINE_WIDTH));
  if (lines.length > max) shown.push(`… +${lines.length - max} lines`);
  return shown;
}

function sourceLabel(source: unknown): string {
  const s = source as { kind?: string; plugin?: string; event?: string } | undefined;
  if (s?.kind === 'hook') return `${s.event ?? 'hook'} hook`;
  if (s?.kind === 'plugin') return `plugin ${s.plugin ?? ''}`.trim();
  return 'you';
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 1000)}s`;
}

function tokens(count: number): string {
  return count < 1000 ? `${count}` : `${(count / 1000).toFixed(1)}k`;
}

/**
 * Renders a run for a person: the prompt, the assistant's text (streamed when deltas arrive), each
 * tool call as `● Name(args)` with its result summarised, denials with who decided, hook messages
 * and failures, and a closing line per turn. Feed it log events, deltas, decisions and errors.
 */
export class Transcript {
  private readonly deciders = new Map<string, TranscriptDecision>();
  // PreToolUse hooks run at tools/prepare, before their call's line: their lines wait for it (this step's calls).
  private readonly waitingForCall = new Map<string, string[]>();
  private readonly shownCalls = new Set<string>();
  // Parallel calls: each call's line waits for its result, so every result sits under its own call.
  private readonly deferredCalls = new Map<string, string>();
  private callsInStep = 0;
  private promptDecider: TranscriptDecision | undefined;
  /** What was streamed of the current step, so the final message is not printed twice. */
  private streamed = { text: '', reasoning: '' };
  private streaming: 'text' | 'reasoning' | undefined;
  private turnStartedAt = 0;
  private steps = 0;
  private usage = { input: 0, output: 0 };

  constructor(
    private readonly screen: Screen,
    private readonly options: {
      now?: () => number;
      showDecisions?: boolean;
      /** The prompt loop: the typed line is on screen already, the transcript does not repeat it. */
      promptsEchoed?: boolean;
    } = {},
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** A waterfall decision: remembered so a denial or block can say who decided (and shown, if asked). */
  decided(decision: TranscriptDecision): void {
    if (decision.decidedBy === 'default') return;
    if (this.options.showDecisions) {
      const shape = decision.decision as { kind?: string; action?: string } | null;
      const kind = shape?.kind ?? shape?.action ?? JSON.stringify(decision.decision);
      const line = this.screen.style.dim(`  · ${decision.seam}: ${kind}, decided by ${decision.decidedBy}`);
      // A parallel call's line waits for its result; its decisions wait with it.
      const callId = decision.callId;
      if (callId !== undefined && this.deferredCalls.has(callId))
        this.waitingForCall.set(callId, [...(this.waitingForCall.get(callId) ?? []), line]);
      else this.screen.line(line);
    }
    if (decision.seam === 'agent/prompt-submit') this.promptDecider = decision;
    else if (decision.callId !== undefined)
      this.deciders.set(`${decision.seam} ${decision.callId}`, decision);
  }

  /** A streamed delta of the current step. */
  delta(delta: TranscriptDelta): void {
    const { screen } = this;
    const { style } = screen;
    if (delta.kind === 'text' || delta.kind === 'reasoning') {
      if (delta.text === '') return;
      if (this.streaming !== delta.kind) {
        screen.endLine();
        if (delta.kind === 'reasoning') screen.write(style.dim('✻ '));
      }
      this.streaming = delta.kind;
      this.streamed[delta.kind] += delta.text;
      screen.write(delta.kind === 'reasoning' ? style.dim(delta.text) : delta.text);
    } else if (delta.kind === 'discard') {
      screen.endLine();
      if (this.streamed.text !== '' || this.streamed.reasoning !== '')
        screen.line(style.dim('  (the streamed answer above was discarded)'));
      this.resetStream();
    } else if (delta.kind === 'tool-call' && delta.name !== undefined) {
      screen.setStatus(`… the model is calling ${delta.name}`);
    }
  }

  /** An `agent/error` notification: shown as Claude Code shows a failing hook. */
  error(origin: string, message: string): void {
    this.screen.line(this.screen.style.red(`! ${origin}: ${message}`));
  }

  /** A line the run itself prints (repairs on resume, a cancel notice). */
  note(text: string): void {
    this.screen.line(this.screen.style.dim(text));
  }

  private resetStream(): void {
    this.streamed = { text: '', reasoning: '' };
    this.streaming = undefined;
  }

  /** One log event. */
  event(event: LogEvent): void {
    const { screen } = this;
    const { style } = screen;
    const data = (event.data ?? {}) as Data;
    switch (event.type) {
      case 'turn/start':
        this.turnStartedAt = this.now();
        this.steps = 0;
        this.usage = { input: 0, output: 0 };
        this.promptDecider = undefined;
        return;
      case 'user/message':
        if (!this.options.promptsEchoed) screen.line(style.bold(`❯ ${textOf(data.content)}`));
        return;
      case 'prompt/blocked': {
        const by = this.promptDecider?.decidedBy;
        screen.line(style.bold(`❯ ${textOf(data.content)}`));
        screen.line(style.red(`  ✗ prompt blocked${by ? ` by ${by}` : ''}: ${String(data.reason)}`));
        return;
      }
      case 'context/message':
        screen.line(
          style.dim(`  ↳ ${sourceLabel(data.source)} adds: ${clip(textOf(data.content), LINE_WIDTH)}`),
        );
        return;
      case 'steering/message':
        screen.line(
          style.dim(`  ↳ ${sourceLabel(data.source)} steers: ${clip(textOf(data.content), LINE_WIDTH)}`),
        );
        return;
      case 'step/start':
        this.flushWaiting();
        this.shownCalls.clear();
        this.steps += 1;
        this.resetStream();
        screen.setStatus('… waiting for the model');
        return;
      case 'assistant/message':
        this.assistant(data);
        return;
      case 'tool/call': {
        const line = `${style.cyan('●')} ${style.bold(String(data.name))}(${shortArguments(data.arguments)})`;
        if (this.callsInStep > 1) {
          this.deferredCalls.set(String(data.callId), line);
          screen.setStatus(`… running ${this.deferredCalls.size} tools`);
          return;
        }
        this.showCall(String(data.callId), line);
        screen.setStatus(`… running ${String(data.name)}`);
        return;
      }
      case 'tool/result':
        this.toolResult(data);
        return;
      case 'hook/invoked':
        screen.setStatus(`… running ${String(data.event)} hook ${String(data.handlerId)}`);
        return;
      case 'hook/result':
        this.hookResult(data);
        return;
      case 'turn/end':
        this.flushWaiting();
        this.turnEnd(data);
        return;
      case 'approval/requested':
      case 'approval/resolved':
      case 'turn/suspended':
      case 'turn/resumed':
        this.approvalEvent(event.type, data);
        return;
      default:
        return;
    }
  }

  /** A deferred approval asked or answered, a turn suspended on them or resumed. */
  private approvalEvent(type: string, data: Data): void {
    const { screen } = this;
    const { style } = screen;
    if (type === 'approval/requested') {
      const reason = typeof data.reason === 'string' ? `: ${data.reason}` : '';
      screen.line(
        style.yellow(
          `? ${String(data.tool)}(${shortArguments(data.arguments)}) awaits approval ${String(data.requestId)} (asked by ${String(data.askedBy)})${reason}`,
        ),
      );
    } else if (type === 'approval/resolved') {
      const by = typeof data.by === 'string' ? ` by ${data.by}` : '';
      const reason = typeof data.reason === 'string' ? `: ${data.reason}` : '';
      screen.line(style.dim(`  ↳ ${String(data.requestId)} ${String(data.outcome)}${by}${reason}`));
    } else if (type === 'turn/suspended') {
      this.flushWaiting();
      screen.clearStatus();
      const pending = (data.pending as string[] | undefined)?.length ?? 0;
      screen.line(
        style.yellow(
          `── turn ${String(data.turn)} suspended · ${pending} approval${pending === 1 ? '' : 's'} pending · ${seconds(this.now() - this.turnStartedAt)}`,
        ),
      );
    } else {
      // The turn goes on in this process: its closing line counts from here.
      this.turnStartedAt = this.now();
      this.usage = { input: 0, output: 0 };
      screen.line(style.dim(`── turn ${String(data.turn)} resumed at step ${String(data.step)}`));
    }
  }

  /** A call's line, then the hook lines that waited for it. */
  private showCall(callId: string, line: string): void {
    this.screen.line(line);
    this.shownCalls.add(callId);
    for (const waiting of this.waitingForCall.get(callId) ?? []) this.screen.line(waiting);
    this.waitingForCall.delete(callId);
  }

  private assistant(data: Data): void {
    this.callsInStep = ((data.content as Block[] | undefined) ?? []).filter(
      (b) => b.type === 'tool-call',
    ).length;
    const { screen } = this;
    const { style } = screen;
    const usage = data.usage as { inputTokens?: number; outputTokens?: number } | undefined;
    this.usage.input += usage?.inputTokens ?? 0;
    this.usage.output += usage?.outputTokens ?? 0;
    const reasoning = textOf(data.content, 'reasoning');
    const text = textOf(data.content);
    // Streamed already: only what the deltas did not show (normally nothing) is printed.
    if (reasoning !== '' && reasoning !== this.streamed.reasoning) screen.line(style.dim(`✻ ${reasoning}`));
    if (text !== '' && text !== this.streamed.text) {
      screen.endLine();
      screen.write(`${text.startsWith(this.streamed.text) ? text.slice(this.streamed.text.length) : text}\n`);
    } else screen.endLine();
    if (data.finish === 'max-tokens') screen.line(style.yellow('  (the answer hit the token limit)'));
    this.resetStream();
  }

  private toolResult(data: Data): void {
    const { screen } = this;
    const { style } = screen;
    const callId = String(data.callId);
    const deferred = this.deferredCalls.get(callId);
    if (deferred !== undefined) {
      this.deferredCalls.delete(callId);
      this.showCall(callId, deferred);
    }
    const { text, ended } = resultText(textOf(data.content));
    const endedLine = ended === undefined ? undefined : style.red(`    (${ended})`);
    // The cut's note is the content's last line, often hidden by the summary: say it on its own line.
    const cut = (data.truncated as { bytes?: number } | undefined)?.bytes;
    const cutLine = cut === undefined ? undefined : `    (output cut: the tool returned ${cut} bytes)`;
    if (!data.isError) {
      summariseLines(text).forEach((line, i) => {
        screen.line(style.dim(`${i === 0 ? '  ⎿ ' : '    '}${line}`));
      });
      if (cutLine !== undefined) screen.line(style.dim(cutLine));
      if (endedLine !== undefined) screen.line(endedLine);
      return;
    }
    const error = (data.error ?? {}) as { code?: string; message?: string };
    const decider =
      this.deciders.get(`approval ${callId}`) ??
      this.deciders.get(`tools/pre-execute ${callId}`) ??
      this.deciders.get(`tools/post-execute ${callId}`);
    const denied = error.code === 'DENIED' || error.code === 'APPROVAL_DENIED';
    const head = denied
      ? `denied${decider ? ` by ${decider.decidedBy}` : ''}`
      : `error${error.code ? ` ${error.code}` : ''}`;
    const lines = summariseLines((text || error.message || '').replace(/^Error: /, ''));
    lines.forEach((line, i) => {
      screen.line(style.red(`${i === 0 ? `  ⎿ ${head}: ` : '    '}${line}`));
    });
    if (cutLine !== undefined) screen.line(style.dim(cutLine));
    if (endedLine !== undefined) screen.line(endedLine);
  }

  private hookResult(data: Data): void {
    const { screen } = this;
    const { style } = screen;
    const who = `${String(data.event)} hook ${String(data.handlerId)}`;
    const lines: string[] = [];
    for (const note of (data.notes as string[] | undefined) ?? []) {
      const message = /^systemMessage: ([\s\S]*)$/.exec(note)?.[1];
      if (message !== undefined) lines.push(style.yellow(`  ⚑ ${who}: ${message}`));
    }
    if (data.decision === 'error' || data.decision === 'timeout') {
      const exit = data.exitCode === undefined ? '' : ` (exit ${String(data.exitCode)})`;
      const stderr = typeof data.stderrSummary === 'string' ? `: ${data.stderrSummary}` : '';
      const what = data.decision === 'timeout' ? 'timed out' : 'failed';
      lines.push(style.red(`  ! ${who} ${what}${exit}${stderr}`));
    }
    const callId = typeof data.callId === 'string' ? data.callId : undefined;
    if (callId !== undefined && !this.shownCalls.has(callId) && lines.length > 0) {
      this.waitingForCall.set(callId, [...(this.waitingForCall.get(callId) ?? []), ...lines]);
      return;
    }
    for (const line of lines) screen.line(line);
  }

  /** Lines of hooks whose call line never came (a call that was not recorded): shown rather than lost. */
  private flushWaiting(): void {
    for (const [callId, line] of this.deferredCalls) this.showCall(callId, line);
    this.deferredCalls.clear();
    for (const lines of this.waitingForCall.values()) for (const line of lines) this.screen.line(line);
    this.waitingForCall.clear();
  }

  private turnEnd(data: Data): void {
    const { screen } = this;
    const { style } = screen;
    const reason = (data.reason ?? {}) as { kind?: string; message?: string; code?: string; reason?: string };
    const kind = String(reason.kind);
    const detail = reason.message ?? reason.reason;
    const usage = data.usage as { inputTokens?: number; outputTokens?: number } | undefined;
    const input = usage?.inputTokens ?? this.usage.input;
    const output = usage?.outputTokens ?? this.usage.output;
    const parts = [
      `${kind}${reason.code ? ` ${reason.code}` : ''}${detail ? `: ${detail}` : ''}`,
      `${this.steps} step${this.steps === 1 ? '' : 's'}`,
      ...(input + output > 0 ? [`${tokens(input)} in / ${tokens(output)} out tokens`] : []),
      seconds(this.now() - this.turnStartedAt),
    ];
    const ok = kind === 'completed' || kind === 'max-tokens';
    const paint = ok ? style.green : style.red;
    screen.line(paint(`── turn ${String(data.turn)} ${parts.join(' · ')}`));
  }
}
