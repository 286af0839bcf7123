import type { JsonValue } from '../kernel/index.js';
import type { AgentHandle, SeamLogger } from '../seams/index.js';
import { type BackgroundHooks, parseAsyncAnswer } from './background.js';
import { capReason, decodeHookOutput } from './codec.js';
import type { DialectRules } from './dialect.js';
import { buildHookEnv } from './env.js';
import { hookInvoked, hookResult } from './events.js';
import { mergeVerdicts } from './merge.js';
import type { PermissionMode, PermissionSet } from './permissions.js';
import { type RunHookOptions, runHook } from './runner.js';
import type {
  HookEventName,
  HookHandler,
  HookRun,
  HookTable,
  HookVerdict,
  LoggedDecision,
  MergedVerdict,
  UpdatedInputFate,
} from './types.js';

/** Everything a bridge fixes once: dialect, config and process settings. */
export interface BridgeRuntime {
  readonly rules: DialectRules;
  readonly table: HookTable;
  readonly scrubCredentials: boolean;
  readonly maxOutputBytes: number;
  readonly killGraceMs: number;
  readonly stderrSummaryChars: number;
  readonly transcriptPath: string | undefined;
  readonly model: string;
  readonly stopContinuationCap: number;
  /** Things that happened at run time worth a line in the capability report. */
  readonly runtimeNotes: string[];
  /** The settings' `permissions` (Claude), when some file has a block: decides each call with the hooks. */
  readonly permissions?: BridgePermissions;
}

/** The merged `permissions` of a Claude bridge and the mode each session runs in. */
export interface BridgePermissions {
  readonly set: PermissionSet;
  /** The session's mode (the set's `defaultMode` unless the host switches it, e.g. ACP session modes). */
  readonly modeFor: (agentId: string | undefined) => PermissionMode;
}

/** One firing of an event. */
export interface HookFiring {
  readonly event: HookEventName;
  /** Tested against matchers (tool name or session source); absent for matcher-less events. */
  readonly subject?: string;
  /** The call's input, for `if` conditions; absent on events without a tool (where `if` never runs). */
  readonly tool?: { readonly name: string; readonly input: JsonValue };
  readonly payload: Record<string, JsonValue>;
  readonly cwd: string;
  readonly signal: AbortSignal;
  /** Where `hook/*` events go; absent outside a turn (session start, agent-less tool calls). */
  readonly record?: { readonly agent: AgentHandle; readonly turn: number };
  readonly logger: SeamLogger;
  /** Extra note for a blocking hook's `hook/result` (e.g. a cap that overrode it). */
  readonly blockNote?: string;
  /** Variables one hook of this firing gets (SessionStart's own `CLAUDE_ENV_FILE`). */
  readonly envFor?: (handler: HookHandler) => Readonly<Record<string, string>>;
  /** The tool call the hooks run for (recorded on `hook/invoked` and `hook/result`). */
  readonly callId?: string;
  /** Where hooks that run in the background go (`async`, `asyncRewake`, a `{"async":true}` answer), and whose they are. */
  readonly background?: { readonly hooks: BackgroundHooks; readonly agent: AgentHandle | undefined };
  /** What to add to each hook's `hook/result` once all verdicts are in (config order, one per result). */
  readonly annotate?: (results: FiredEvent['results'], merged: MergedVerdict) => readonly ResultAnnotation[];
}

/** Extra facts for one hook's `hook/result`, decided after the merge. */
export interface ResultAnnotation {
  readonly notes?: readonly string[];
  readonly updatedInput?: UpdatedInputFate;
}

/** The merged outcome plus each handler's verdict, in config order. */
export interface FiredEvent {
  readonly merged: MergedVerdict;
  readonly results: readonly {
    readonly handler: HookHandler;
    readonly run: HookRun;
    readonly verdict: HookVerdict;
  }[];
  /** What `firing.annotate` added to each result (config order; empty objects without it). */
  readonly annotations: readonly ResultAnnotation[];
}

/**
 * The handlers an event runs: matching ones whose `if` holds, identical handlers (program, args,
 * plugin) once when the dialect dedupes.
 */
export function selectHandlers(
  runtime: BridgeRuntime,
  event: HookEventName,
  subject?: string,
  tool?: HookFiring['tool'],
  cwd: string = process.cwd(),
): HookHandler[] {
  const seen = new Set<string>();
  return runtime.table.handlers.filter((handler) => {
    if (handler.event !== event) return false;
    if (subject !== undefined && !handler.matches(subject)) return false;
    if (handler.condition !== undefined) {
      if (tool === undefined || !handler.condition.test(tool.name, tool.input, cwd)) return false;
    }
    if (!runtime.rules.dedupeCommands) return true;
    if (seen.has(handler.dedupeKey)) return false;
    seen.add(handler.dedupeKey);
    return true;
  });
}

/** The `decision` recorded for one handler. */
export function loggedDecision(event: HookEventName, verdict: HookVerdict): LoggedDecision {
  if (verdict.stop) return 'stop';
  if (verdict.failure) return verdict.failure;
  if (verdict.kind === 'block')
    return event === 'PreToolUse' || event === 'PermissionRequest'
      ? 'deny'
      : event === 'Stop'
        ? 'continue'
        : 'block';
  return verdict.kind;
}

// Events whose action a failed `onFailure: 'block'` hook blocks (Stop and SessionStart have none).
const BLOCKABLE: readonly HookEventName[] = [
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PermissionRequest',
];

/** `onFailure: 'block'`: a hook that failed (no decision, an error or a timeout) counts as exit 2. */
function applyOnFailure(
  handler: HookHandler,
  event: HookEventName,
  verdict: HookVerdict,
  run: HookRun,
): HookVerdict {
  if (handler.onFailure !== 'block' || verdict.failure === undefined || !BLOCKABLE.includes(event))
    return verdict;
  const stderr = run.stderr.trim();
  const why = verdict.failure === 'timeout' ? 'timed out' : (verdict.notes.at(-1) ?? 'failed');
  const reason = capReason(stderr !== '' ? stderr : `${event} hook ${handler.id} ${why} (onFailure: block)`);
  return {
    kind: 'block',
    reason: reason.text,
    notes: [
      ...verdict.notes,
      `onFailure "block": the ${verdict.failure} counts as exit 2`,
      ...(reason.note ? [reason.note] : []),
    ],
  };
}

/** A hook's stderr trimmed and cut to `max` characters (`undefined` when it printed nothing). */
export function summarize(stderr: string, max: number): string | undefined {
  const trimmed = stderr.trim();
  if (trimmed === '') return undefined;
  return trimmed.length > max ? `${trimmed.slice(0, max)}…` : trimmed;
}

function append(firing: HookFiring, type: string, data: JsonValue): void {
  try {
    firing.record?.agent.log.append(type, data);
  } catch (error) {
    firing.logger.error(`${type} could not be recorded: ${(error as Error).message}`, { error });
  }
}

/**
 * Runs the handlers of one event in parallel and merges their verdicts in config order. Every
 * `hook/invoked` is appended before the launch and every `hook/result` after the merge, so the log
 * does not depend on which hook finished first. Returns `undefined` when no handler matches.
 * @param runtime the bridge's settings
 * @param firing event, subject, payload and where to record
 */
export async function fireHookEvent(
  runtime: BridgeRuntime,
  firing: HookFiring,
): Promise<FiredEvent | undefined> {
  const handlers = selectHandlers(runtime, firing.event, firing.subject, firing.tool, firing.cwd);
  if (handlers.length === 0) return undefined;
  const { rules } = runtime;
  const turn = firing.record?.turn ?? 0;
  for (const handler of handlers) {
    append(firing, hookInvoked.type, {
      turn,
      event: firing.event,
      dialect: rules.dialect,
      handlerId: handler.id,
      ...(handler.matcher === undefined ? {} : { matcher: handler.matcher }),
      ...(firing.callId === undefined ? {} : { callId: firing.callId }),
    });
  }
  const stdin = JSON.stringify(firing.payload) + (rules.stdinNewline ? '\n' : '');
  const env = buildHookEnv({
    base: process.env,
    extra: rules.extraEnv({ cwd: firing.cwd }),
    scrubCredentials: runtime.scrubCredentials,
  });
  // What plugins give processes of this place (TRACEPARENT of the call's span, …).
  const placed = firing.record?.agent.env?.processEnvFor?.({ turn, callId: firing.callId }) ?? {};
  const envFor = (handler: HookHandler): NodeJS.ProcessEnv => {
    const own = { ...placed, ...handler.env, ...(firing.envFor?.(handler) ?? {}) };
    return Object.keys(own).length === 0 ? env : { ...env, ...own };
  };
  // Exec-form arguments never meet a shell, so `${VAR}` of the hook's own variables is expanded here.
  const argsFor = (handler: HookHandler, hookEnv: NodeJS.ProcessEnv): readonly string[] | undefined =>
    handler.args?.map((arg) =>
      arg.replace(/\$\{(CLAUDE_[A-Z_]+)\}/g, (whole, name: string) => hookEnv[name] ?? whole),
    );
  // Write-ahead: no hook process starts before its `hook/invoked` is committed.
  await firing.record?.agent.log.barrier?.();
  const runs = await Promise.all(
    handlers.map((handler) => {
      const hookEnv = envFor(handler);
      const args = argsFor(handler, hookEnv);
      return launchHook(runtime, firing, handler, {
        command: handler.command,
        ...(args === undefined ? {} : { args }),
        cwd: firing.cwd,
        env: hookEnv,
        stdin,
        timeoutMs: handler.timeoutMs,
        maxOutputBytes: runtime.maxOutputBytes,
        killGraceMs: runtime.killGraceMs,
      });
    }),
  );
  const results = handlers.map((handler, i) => {
    const run = runs[i]!;
    const verdict =
      run.outcome === 'background'
        ? { kind: 'none' as const, notes: run.notes }
        : applyOnFailure(handler, firing.event, decodeHookOutput(run, firing.event, rules.dialect), run);
    return { handler, run, verdict };
  });
  const merged = mergeVerdicts(
    results.map((result) => result.verdict),
    results.map((result) => result.handler.id),
  );
  const annotations: readonly ResultAnnotation[] =
    firing.annotate?.(results, merged) ?? results.map(() => ({}));
  // A cancelled seam's decision is ignored by the machine; its results would land after the turn moved on.
  if (firing.signal.aborted) return { merged, results, annotations };
  results.forEach(({ handler, run, verdict }, index) => {
    const annotation: ResultAnnotation = annotations[index] ?? {};
    const notes = [...verdict.notes, ...(annotation.notes ?? [])];
    if (verdict.systemMessage !== undefined) notes.push(`systemMessage: ${verdict.systemMessage}`);
    if (verdict.kind === 'block' && firing.blockNote !== undefined) notes.push(firing.blockNote);
    const stderrSummary = summarize(run.stderr, runtime.stderrSummaryChars);
    const data: Record<string, JsonValue> = {
      turn,
      event: firing.event,
      handlerId: handler.id,
      decision: loggedDecision(firing.event, verdict),
      ...(run.exitCode === null ? {} : { exitCode: run.exitCode }),
      durationMs: run.durationMs,
      ...(stderrSummary === undefined ? {} : { stderrSummary }),
      ...(notes.length > 0 ? { notes } : {}),
      ...(firing.callId === undefined ? {} : { callId: firing.callId }),
      ...(annotation.updatedInput === undefined ? {} : { updatedInput: annotation.updatedInput }),
    };
    append(firing, hookResult.type, data);
    if (verdict.systemMessage !== undefined)
      firing.logger.warn?.(`${handler.id} systemMessage: ${verdict.systemMessage}`);
  });
  return { merged, results, annotations };
}

/** A run that went on in the background: it decided nothing here (its output comes later). */
function backgroundRun(note: string, durationMs: number): HookRun {
  return { exitCode: null, stdout: '', stderr: '', outcome: 'background', durationMs, notes: [note] };
}

/**
 * Starts one hook. An `async`/`asyncRewake` handler, or one whose first stdout line is
 * `{"async":true}`, is handed to the bridge's background registry and answers at once (it holds
 * nothing); any other run is awaited. Until it is handed over, the firing's signal kills it.
 */
async function launchHook(
  runtime: BridgeRuntime,
  firing: HookFiring,
  handler: HookHandler,
  options: Omit<RunHookOptions, 'signal' | 'onStdout'>,
): Promise<HookRun> {
  const started = performance.now();
  const controller = new AbortController();
  const forward = (): void => controller.abort();
  if (firing.signal.aborted) controller.abort();
  else firing.signal.addEventListener('abort', forward, { once: true });
  const background = firing.background;
  const canAnswerAsync = background !== undefined && runtime.rules.asyncAnswer;
  let answered: ((answer: { asyncTimeoutMs?: number }) => void) | undefined;
  const answeredAsync = new Promise<{ asyncTimeoutMs?: number }>((resolve) => {
    answered = resolve;
  });
  let firstLine = '';
  let lineDone = false;
  const onStdout = (chunk: Buffer): void => {
    if (lineDone) return;
    firstLine += chunk.toString('utf8');
    const newline = firstLine.indexOf('\n');
    if (newline === -1) return;
    lineDone = true;
    const answer = parseAsyncAnswer(firstLine.slice(0, newline));
    if (answer !== undefined) answered?.(answer);
  };
  const run = runHook({
    ...options,
    signal: controller.signal,
    ...(canAnswerAsync && handler.background === undefined ? { onStdout } : {}),
  });
  const handOver = (answeredAsyncLine: boolean, asyncTimeoutMs?: number): HookRun => {
    firing.signal.removeEventListener('abort', forward);
    background?.hooks.adopt({
      handler,
      event: firing.event,
      agent: background.agent,
      controller,
      run,
      answeredAsync: answeredAsyncLine,
      ...(asyncTimeoutMs === undefined ? {} : { asyncTimeoutMs }),
    });
    const duration = Math.round(performance.now() - started);
    return backgroundRun(
      answeredAsyncLine
        ? 'answered {"async":true}: runs on in the background'
        : `${handler.background === 'rewake' ? 'asyncRewake' : 'async'}: runs in the background`,
      duration,
    );
  };
  if (background !== undefined && handler.background !== undefined) return handOver(false);
  const first = await Promise.race([run, answeredAsync.then((answer) => ({ answer }))]);
  if ('answer' in first) return handOver(true, first.answer.asyncTimeoutMs);
  firing.signal.removeEventListener('abort', forward);
  return first;
}
