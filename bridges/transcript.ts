import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ContentBlock, JsonValue, LogEvent } from '../kernel/index.js';
import type { AgentHandle } from '../seams/index.js';

/** One line of a Claude Code transcript (the fields hook scripts read). */
export interface ClaudeTranscriptLine {
  readonly parentUuid: string | null;
  readonly isSidechain: false;
  readonly userType: 'external';
  readonly cwd: string;
  readonly sessionId: string;
  readonly version: string;
  readonly type: 'user' | 'assistant';
  readonly message: { readonly role: 'user' | 'assistant'; readonly content: JsonValue };
  readonly uuid: string;
  readonly timestamp: string;
  readonly toolUseResult?: JsonValue;
}

const FINISH: Record<string, string> = {
  stop: 'end_turn',
  'tool-calls': 'tool_use',
  'max-tokens': 'max_tokens',
};

/** A stable UUID per log event, so a transcript rebuilt from the log has the same ids. */
function eventUuid(sessionId: string, seq: number): string {
  const hex = createHash('sha256').update(`${sessionId}\0${seq}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function parseArguments(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

function textOf(content: readonly ContentBlock[]): string {
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** A user prompt as Claude writes it: a plain string when it is one text block. */
function userContent(content: readonly ContentBlock[]): JsonValue {
  const texts = content.filter((block) => block.type === 'text');
  return texts.length === 1
    ? (texts[0] as { text: string }).text
    : texts.map((b) => ({ type: 'text', text: b.text }));
}

function assistantContent(content: readonly ContentBlock[]): JsonValue[] {
  return content.map((block): JsonValue => {
    if (block.type === 'text') return { type: 'text', text: block.text };
    if (block.type === 'reasoning') return { type: 'thinking', thinking: block.text };
    if (block.type === 'image')
      return { type: 'image', source: { type: 'base64', media_type: block.mimeType, data: block.data } };
    if (block.type === 'resource-link') return { type: 'text', text: `[resource link] ${block.uri}` };
    return { type: 'tool_use', id: block.id, name: block.name, input: parseArguments(block.arguments) };
  });
}

/** The `type`/`message` part of the line an event becomes, if it becomes one. */
function lineBody(
  event: LogEvent,
  model: string,
): Pick<ClaudeTranscriptLine, 'type' | 'message' | 'toolUseResult'> | undefined {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'user/message':
    case 'steering/message':
      return {
        type: 'user',
        message: { role: 'user', content: userContent(data.content as ContentBlock[]) },
      };
    case 'assistant/message':
      return {
        type: 'assistant',
        message: {
          id: `msg_${event.seq}`,
          type: 'message',
          role: 'assistant',
          model,
          content: assistantContent(data.content as ContentBlock[]),
          stop_reason: FINISH[String(data.finish)] ?? 'end_turn',
        } as ClaudeTranscriptLine['message'],
      };
    case 'tool/result': {
      const text = textOf(data.content as ContentBlock[]);
      return {
        type: 'user',
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: String(data.callId),
              content: text,
              is_error: data.isError === true,
            },
          ],
        },
        toolUseResult: text,
      };
    }
    default:
      return undefined;
  }
}

interface TranscriptState {
  readonly agent: AgentHandle;
  readonly file: string;
  readonly temporary: boolean;
  /** The last log `seq` written (−1: none). */
  seq: number;
  lastUuid: string | null;
}

/**
 * Claude-format transcripts kept beside the session log (`<session>.claude.jsonl`, mode 0600), or in
 * a temporary file removed at dispose when the session is not persisted. Lines are appended
 * synchronously as log events arrive and before any hook is launched; a missing file is rebuilt
 * from the log, an existing one is continued where it ends.
 */
export class ClaudeTranscripts {
  readonly #sessionLog: string | undefined;
  readonly #model: string;
  readonly #states = new Map<string, TranscriptState>();
  #tempDir: string | undefined;

  constructor(sessionLog: string | undefined, model: string) {
    this.#sessionLog = sessionLog;
    this.#model = model;
  }

  /** The transcript path of `agent`, brought up to date with its log first. */
  sync(agent: AgentHandle, cwd: string): string {
    const state = this.#states.get(agent.id) ?? this.#open(agent);
    const lines: string[] = [];
    for (const event of agent.log.events) {
      if (event.seq <= state.seq) continue;
      state.seq = event.seq;
      const body = lineBody(event, this.#model);
      if (body === undefined) continue;
      const uuid = eventUuid(agent.id, event.seq);
      const line: ClaudeTranscriptLine = {
        parentUuid: state.lastUuid,
        isSidechain: false,
        userType: 'external',
        cwd,
        sessionId: agent.id,
        version: 'seamchart',
        ...body,
        uuid,
        timestamp: event.time,
      };
      lines.push(JSON.stringify(line));
      state.lastUuid = uuid;
    }
    if (lines.length > 0) appendFileSync(state.file, `${lines.join('\n')}\n`, { mode: 0o600 });
    return state.file;
  }

  /** Follows a new log event of a known agent (from `session/event`). */
  follow(agentId: string, cwd: string): void {
    const state = this.#states.get(agentId);
    if (state !== undefined) this.sync(state.agent, cwd);
  }

  /** Forgets `agentId`; a temporary transcript is removed. */
  release(agentId: string): void {
    const state = this.#states.get(agentId);
    this.#states.delete(agentId);
    if (state?.temporary) rmSync(state.file, { force: true });
    if (this.#tempDir !== undefined && this.#states.size === 0) {
      rmSync(this.#tempDir, { recursive: true, force: true });
      this.#tempDir = undefined;
    }
  }

  #open(agent: AgentHandle): TranscriptState {
    const temporary = this.#sessionLog === undefined;
    let file: string;
    if (this.#sessionLog === undefined) {
      this.#tempDir ??= mkdtempSync(path.join(tmpdir(), 'seamchart-transcript-'));
      file = path.join(this.#tempDir, `${agent.id.replace(/[^A-Za-z0-9._-]/g, '_')}.claude.jsonl`);
    } else {
      const parsed = path.parse(this.#sessionLog);
      file = path.join(parsed.dir, `${parsed.ext === '.jsonl' ? parsed.name : parsed.base}.claude.jsonl`);
    }
    const state: TranscriptState = { agent, file, temporary, seq: -1, lastUuid: null };
    if (existsSync(file)) this.#resume(state);
    this.#states.set(agent.id, state);
    return state;
  }

  /** Continues an existing transcript after the event its last line came from. */
  #resume(state: TranscriptState): void {
    const lines = readFileSync(state.file, 'utf8').trimEnd().split('\n');
    let last: string | undefined;
    try {
      last = (JSON.parse(lines.at(-1) ?? '') as { uuid?: string }).uuid;
    } catch {
      last = undefined;
    }
    const events = state.agent.log.events;
    const from = events.find((event) => eventUuid(state.agent.id, event.seq) === last);
    state.lastUuid = last ?? null;
    // An unknown last line (edited by hand): keep it and append only what happens from now on.
    state.seq = from?.seq ?? events.at(-1)?.seq ?? -1;
  }
}
