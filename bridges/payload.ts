import type { ContentBlock, JsonValue, ToolResult } from '../kernel/index.js';
import type { AgentHandle } from '../seams/index.js';
import type { DialectRules } from './dialect.js';
import type { HookEventName } from './types.js';

/** Where a payload is built: the session and, for turn-scoped events, the turn. */
export interface PayloadScope {
  readonly sessionId: string;
  readonly cwd: string;
  readonly transcriptPath: string | undefined;
  readonly model: string;
  readonly turn?: number;
}

/**
 * The JSON a hook reads on stdin: the common fields of the dialect plus the event's own.
 * @param rules the dialect (transcript fallback, Codex extras)
 * @param event the hook event name
 * @param scope session, cwd, transcript, model and turn
 * @param fields the event-specific fields (`prompt`, `tool_name`…)
 */
export function buildPayload(
  rules: DialectRules,
  event: HookEventName,
  scope: PayloadScope,
  fields: Record<string, JsonValue>,
): Record<string, JsonValue> {
  return {
    session_id: scope.sessionId,
    transcript_path: scope.transcriptPath ?? rules.missingTranscript,
    cwd: scope.cwd,
    hook_event_name: event,
    ...(rules.codexPayloadFields
      ? {
          model: scope.model,
          permission_mode: 'default',
          ...(scope.turn === undefined ? {} : { turn_id: String(scope.turn) }),
        }
      : {}),
    ...fields,
  };
}

/** The session's working directory: the agent's `cwd` when it has one, else the process's. */
export function agentCwd(agent: AgentHandle | undefined): string {
  const cwd = (agent as { cwd?: unknown } | undefined)?.cwd;
  return typeof cwd === 'string' && cwd !== '' ? cwd : process.cwd();
}

/** Text blocks joined (what a hook sees as `prompt` or a message). */
export function textOf(content: readonly ContentBlock[]): string {
  return content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
}

/** `tool_response`: the canonical value when it is an object, else `{ content: <text> }`. */
export function toolResponse(result: ToolResult): JsonValue {
  const value = result.isError ? undefined : result.value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value;
  return { content: textOf(result.content) };
}

/** The text of the last `assistant/message` of a turn, if any. */
export function lastAssistantText(agent: AgentHandle, turn: number): string | undefined {
  const events = agent.log.events;
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event === undefined) continue;
    if (event.type === 'turn/start') return undefined;
    if (event.type !== 'assistant/message') continue;
    const data = event.data as { turn: number; content: ContentBlock[] };
    return data.turn === turn ? textOf(data.content) : undefined;
  }
  return undefined;
}
