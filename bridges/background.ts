import type { AgentHandle, SeamLogger } from '../seams/index.js';
import { capContext, decodeHookOutput } from './codec.js';
import { hookSource } from './contexts.js';
import type { Dialect, HookEventName, HookHandler, HookRun } from './types.js';

/** A hook run that left the seam which started it. */
export interface BackgroundRun {
  readonly handler: HookHandler;
  readonly event: HookEventName;
  /** The agent its output goes to (absent for agent-less calls: the output is dropped). */
  readonly agent: AgentHandle | undefined;
  /** Aborting it kills the hook's process tree. */
  readonly controller: AbortController;
  /** Settles when the hook exits (or is killed). */
  readonly run: Promise<HookRun>;
  /** It answered `{"async":true}` on its first stdout line (that line is not its output). */
  readonly answeredAsync: boolean;
  /** `asyncTimeout` from that line, in ms: the run is killed after it. */
  readonly asyncTimeoutMs?: number;
}

/** The first stdout line of a hook that turns itself into a background run: `{"async":true, asyncTimeout?}`. */
export function parseAsyncAnswer(line: string): { asyncTimeoutMs?: number } | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(trimmed) as Record<string, unknown>;
    if (parsed === null || typeof parsed !== 'object' || parsed.async !== true) return undefined;
    const timeout = parsed.asyncTimeout;
    return typeof timeout === 'number' && timeout > 0 ? { asyncTimeoutMs: timeout } : {};
  } catch {
    return undefined;
  }
}

/** The hook's answer after its async line: the first JSON object line, as Claude Code's registry reads it. */
function answerOf(run: HookRun, answeredAsync: boolean): HookRun {
  const lines = run.stdout.split('\n');
  const rest = answeredAsync ? lines.slice(1) : lines;
  const json = rest.find((line) => {
    const trimmed = line.trim();
    return trimmed.startsWith('{') && trimmed.endsWith('}') && parseAsyncAnswer(trimmed) === undefined;
  });
  return { ...run, stdout: json ?? (answeredAsync ? '' : run.stdout) };
}

/**
 * Hooks running in the background for one applied bridge (`async`, `asyncRewake`, and hooks that
 * answered `{"async":true}`): they hold no call and no session start. When one exits its output is
 * delivered as Claude Code does — an `asyncRewake` hook that exits 2 wakes the model with its
 * stderr (else stdout), an `additionalContext` reaches it — both through `agent.inject()` (the
 * open turn's FIFO, or an injection turn its next request sees); a `systemMessage` is shown to the
 * user. Every run of an agent is killed when that agent is disposed.
 */
export class BackgroundHooks {
  // Live runs per agent id: this bridge's own state.
  readonly #runs = new Map<string, Set<AbortController>>();
  readonly #dialect: Dialect;
  readonly #logger: SeamLogger;

  constructor(dialect: Dialect, logger: SeamLogger) {
    this.#dialect = dialect;
    this.#logger = logger;
  }

  /** Takes over a started run; its output is delivered when it exits. */
  adopt(background: BackgroundRun): void {
    const { agent, controller } = background;
    if (agent === undefined || agent.status === 'disposed') {
      controller.abort();
      return;
    }
    let runs = this.#runs.get(agent.id);
    if (runs === undefined) {
      runs = new Set();
      this.#runs.set(agent.id, runs);
    }
    runs.add(controller);
    const timer =
      background.asyncTimeoutMs === undefined
        ? undefined
        : setTimeout(() => controller.abort(), background.asyncTimeoutMs);
    timer?.unref();
    void background.run.then((run) => {
      clearTimeout(timer);
      runs.delete(controller);
      if (controller.signal.aborted || agent.status === 'disposed') return;
      this.#deliver(background, run);
    });
  }

  /** Kills every background hook of an agent (it is disposed). */
  release(agentId: string): void {
    for (const controller of this.#runs.get(agentId) ?? []) controller.abort();
    this.#runs.delete(agentId);
  }

  #deliver(background: BackgroundRun, run: HookRun): void {
    const { handler, event, agent } = background;
    if (agent === undefined) return;
    const source = hookSource(this.#dialect, event);
    const meta = { handlerId: handler.id, background: handler.background ?? 'answered-async' };
    if (handler.background === 'rewake' && run.exitCode === 2) {
      const output = run.stderr.trim() || answerOf(run, background.answeredAsync).stdout.trim();
      const body = output === '' ? `${event} hook ${handler.id} exited with code 2` : output;
      const message = capContext(handler.rewakeMessage ? `${handler.rewakeMessage}\n\n${body}` : body).text;
      if (handler.rewakeSummary !== undefined) this.#logger.warn?.(`${handler.id}: ${handler.rewakeSummary}`);
      agent.inject(message, { source, meta });
      return;
    }
    const answer = answerOf(run, background.answeredAsync);
    if (!answer.stdout.trim().startsWith('{')) return;
    const verdict = decodeHookOutput(answer, event, this.#dialect);
    if (verdict.systemMessage !== undefined)
      this.#logger.warn?.(`${handler.id} systemMessage: ${verdict.systemMessage}`);
    if (verdict.context === undefined) return;
    // As agent.inject() delivers: the open turn's FIFO, or an injection turn the next request sees.
    agent.inject(verdict.context, { source, meta });
  }
}
