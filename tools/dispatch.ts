import { describeThrown, type HookContext, HookContextSchema, type ToolResult } from '../kernel/index.js';
import type { ToolExecution, ToolRunContext } from '../seams/index.js';
import { capHookContext, formatIssues } from '../seams/index.js';
import { boundToolResult, maxContentBytesOf } from './boundContent.js';
import { deepFreezeJson } from './json.js';
import { parseToolArgs, renderToolValue } from './output.js';
import { createFailureResult, ToolMessage, withContexts } from './results.js';
import type { ToolRegistryCore } from './types.js';

export interface CoreDispatchOptions {
  readonly tools: ToolRegistryCore;
  /** How long a started body is awaited after its signal aborted. */
  readonly cancelGraceMs: number;
  /** The call's own signal: an abort of it also ends the body, whatever signal a wrapper passed. */
  readonly callSignal: AbortSignal;
  /** Called right before the body runs. */
  readonly onBodyStart?: () => void;
  /** Aborted when nobody waits for the body any more (its phase was left): the grace timer goes at once. */
  readonly stopSignal?: AbortSignal;
}

type BodyOutcome =
  | { kind: 'returned'; value: unknown }
  | { kind: 'threw'; error: unknown }
  | { kind: 'did-not-stop' };

/**
 * Creates the bottom of `tools/execute`: resolves the tool now, validates the arguments, runs the
 * body and normalizes whatever happens into a frozen result (it never rejects). Contexts the body
 * deferred ride on the result, so a retried attempt's contexts are dropped with its result.
 */
export function createCoreDispatch(
  options: CoreDispatchOptions,
): (exec: ToolExecution) => Promise<ToolResult> {
  const { tools, cancelGraceMs, callSignal, onBodyStart, stopSignal } = options;
  return async (exec) => {
    const signal = exec.signal;
    if (signal.aborted || callSignal.aborted) {
      return createFailureResult('ABORTED_BEFORE_DISPATCH', ToolMessage.abortedBeforeDispatch());
    }
    const tool = tools.get(exec.name);
    if (!tool) return createFailureResult('UNKNOWN_TOOL', ToolMessage.unknownTool(exec.name));
    const args = parseToolArgs(tool, exec.arguments);
    if (!args.ok) return createFailureResult('INVALID_ARGS', args.message);

    const deferred: HookContext[] = [];
    let accepting = true;
    const context: ToolRunContext = Object.freeze({
      ...exec,
      deferContext(rawContext: HookContext): void {
        // Contexts deferred after the body settled have nowhere to go: the result is already made.
        if (accepting) deferred.push(validateDeferred(exec.name, rawContext));
      },
    });
    // Write-ahead: the body starts only once the log before it (its `tool/call`) is committed; a store that
    // lost its lease (FENCED) never lets it start.
    // A caller of a standalone `tools.execute` may hand in a partial agent handle (no log): nothing to wait for.
    const log = exec.agent?.log as Partial<NonNullable<typeof exec.agent>['log']> | undefined;
    const barrier = log?.barrier;
    if (barrier !== undefined) {
      const passed = await barrier.call(log).then(
        () => true,
        () => false,
      );
      if (!passed || signal.aborted || callSignal.aborted)
        return createFailureResult('ABORTED_BEFORE_DISPATCH', ToolMessage.abortedBeforeDispatch());
    }
    onBodyStart?.();
    const outcome = await awaitBody(
      () => tool.execute(args.data, context),
      [signal, callSignal],
      cancelGraceMs,
      stopSignal,
    );
    accepting = false;
    if (outcome.kind === 'did-not-stop') {
      return createFailureResult('ABORTED', ToolMessage.aborted(), ToolMessage.didNotStop);
    }
    // Whatever a body does after its abort, the caller asked it to stop: the outcome is ABORTED.
    const result =
      signal.aborted || callSignal.aborted
        ? createFailureResult('ABORTED', ToolMessage.aborted())
        : outcome.kind === 'threw'
          ? boundToolResult(
              createFailureResult('TOOL_FAILED', describeThrown(outcome.error)),
              maxContentBytesOf(tool),
            )
          : renderToolValue(tool, outcome.value, args.data);
    return withContexts(result, deferred);
  };
}

// Awaits the body, but once a signal aborts only for `graceMs` more: Ctrl-C always ends the call.
function awaitBody(
  run: () => unknown,
  signals: AbortSignal[],
  graceMs: number,
  stopSignal?: AbortSignal,
): Promise<BodyOutcome> {
  return new Promise<BodyOutcome>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = (): void => {
      timer ??= setTimeout(() => finish({ kind: 'did-not-stop' }), graceMs);
    };
    const onStop = (): void => finish({ kind: 'did-not-stop' });
    const finish = (outcome: BodyOutcome): void => {
      if (timer !== undefined) clearTimeout(timer);
      for (const s of signals) s.removeEventListener('abort', onAbort);
      stopSignal?.removeEventListener('abort', onStop);
      resolve(outcome);
    };
    for (const s of signals) s.addEventListener('abort', onAbort, { once: true });
    stopSignal?.addEventListener('abort', onStop, { once: true });
    try {
      Promise.resolve(run()).then(
        (value) => finish({ kind: 'returned', value }),
        (error: unknown) => finish({ kind: 'threw', error }),
      );
    } catch (error) {
      finish({ kind: 'threw', error });
    }
  });
}

function validateDeferred(toolName: string, rawContext: unknown): HookContext {
  const parsed = HookContextSchema.safeParse(rawContext);
  if (!parsed.success) {
    throw new TypeError(
      `Expected exec.deferContext() in tool "${toolName}" to receive a HookContext ({ content, source, meta? }): ${formatIssues(parsed.error.issues, rawContext)}`,
    );
  }
  // Keep the caller's object as given (meta and all), detached from later mutation.
  return deepFreezeJson(capHookContext(structuredClone(rawContext as HookContext), 'tool'));
}
