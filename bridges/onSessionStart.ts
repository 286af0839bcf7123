import { type Listener, Seam } from '../seams/index.js';
import { hookSource } from './contexts.js';
import { fireHookEvent, summarize } from './fire.js';
import { type ListenerKit, payloadScope } from './listenerKit.js';
import { buildPayload } from './payload.js';
import { HookEvent, type HookHandler, type HookRun, type HookVerdict } from './types.js';

const event = HookEvent.sessionStart;

/** The `agent/error` text of a failed SessionStart hook: handler, command, exit code, stderr summary. */
function describeFailure(
  handler: HookHandler,
  run: HookRun,
  verdict: HookVerdict,
  summaryChars: number,
): string {
  const command = handler.args === undefined ? handler.command : [handler.command, ...handler.args].join(' ');
  const summary = summarize(run.stderr, summaryChars);
  let what: string;
  if (verdict.failure === 'timeout') what = `timed out after ${handler.timeoutMs} ms`;
  else if (run.outcome === 'spawn-error') what = `could not be started (${verdict.notes.join('; ')})`;
  else if (run.exitCode === null) what = 'was killed by a signal';
  else what = `exited with code ${run.exitCode}`;
  return `SessionStart hook ${handler.id} (${command}) ${what}${summary ? `: ${summary}` : ''}`;
}

/**
 * `SessionStart` on the awaited `agent/session-start`: contexts are injected before the first turn.
 * Each hook gets its own fresh `CLAUDE_ENV_FILE`; the files are handed, in config order, to the
 * agent's tools (`exec.env`), whose shell sources them before each command. No turn is open, so
 * nothing is logged as `hook/*`; a hook that fails, times out or cannot be found becomes `agent/error`.
 * @param kit the applied bridge's shared state
 */
export function createSessionStartListener(kit: ListenerKit): Listener<'agent/session-start'> {
  const { runtime } = kit;
  return async (ctx) => {
    const scope = payloadScope(kit, ctx.agent);
    const envFiles = kit.envFiles.forSession(ctx.agent);
    const fired = await fireHookEvent(runtime, {
      event,
      subject: ctx.source,
      payload: buildPayload(runtime.rules, event, scope, { source: ctx.source }),
      cwd: scope.cwd,
      signal: ctx.signal,
      logger: kit.seams.logger,
      background: { hooks: kit.background, agent: ctx.agent },
      envFor: (handler) => envFiles.variablesFor(handler),
    });
    if (fired === undefined || ctx.signal.aborted) return;
    for (const { handler, run, verdict } of fired.results) {
      envFiles.hand(handler);
      // Exit 2 blocks nothing at session start: like any failure, the user is told.
      if (verdict.failure === undefined && verdict.kind !== 'block') continue;
      kit.seams.notify(
        Seam.error,
        {
          agentId: ctx.agent.id,
          error: {
            message: describeFailure(handler, run, verdict, runtime.stderrSummaryChars),
            code: verdict.failure === 'timeout' ? 'HOOK_TIMEOUT' : 'HOOK_FAILED',
          },
          origin: runtime.rules.pluginName,
        },
        { agentId: ctx.agent.id },
      );
    }
    const source = hookSource(runtime.rules.dialect, event);
    for (const context of fired.merged.contexts) ctx.agent.inject(context, { source });
  };
}
