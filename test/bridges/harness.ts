import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect } from 'vitest';
import { z } from 'zod';
import type { HookBridge } from '../../bridges/index.js';
import type { ContentBlock, JsonValue, LogEvent } from '../../kernel/index.js';
import { type Agent, createAgent, createToolRegistry } from '../../machines/index.js';
import { type ScriptedModel, scriptedModel } from '../../model/index.js';
import { type ApprovalChannel, createSeams, type SeamLogger, type Seams } from '../../seams/index.js';
import { checkInvariants, coreTurnEvents } from '../../session/index.js';
import type { SessionStore } from '../../session/types.js';
import { createDemoTools, defineTool, type ToolDefinition } from '../../tools/index.js';

/** Absolute path of the fixture scripts. */
export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** One model step calling `Bash` with `ls` (call id `c1`). */
export const bashCall = { toolCalls: [{ id: 'c1', name: 'Bash', arguments: { command: 'ls' } }] };

/** `sh <fixture> args…` / `python3 <fixture> args…` as a hook command (arguments single-quoted). */
export function fixture(name: string, ...args: string[]): string {
  const runner = name.endsWith('.py') ? 'python3' : 'sh';
  const quoted = args.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`);
  return [runner, `'${path.join(FIXTURES, name)}'`, ...quoted].join(' ');
}

/** A Claude/Codex style config with one group per entry. */
export function hooksConfig(
  groups: Record<string, { matcher?: string; commands: (string | Record<string, unknown>)[] }[]>,
): Record<string, unknown> {
  const hooks: Record<string, unknown> = {};
  for (const [event, list] of Object.entries(groups)) {
    hooks[event] = list.map((group) => ({
      ...(group.matcher === undefined ? {} : { matcher: group.matcher }),
      hooks: group.commands.map((command) =>
        typeof command === 'string' ? { type: 'command', command } : { type: 'command', ...command },
      ),
    }));
  }
  return { hooks };
}

/** A fresh scratch directory used as the session cwd (hook scripts write their markers there). */
export async function scratchDir(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'seamchart-hooks-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Registers an `afterEach` that removes the scratch directories a test made, and returns the
 * function that makes one (the session cwd).
 */
export function useScratchSessions(): () => Promise<string> {
  const made: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((remove) => remove()));
  });
  return async () => {
    const scratch = await scratchDir();
    made.push(scratch.remove);
    return scratch.dir;
  };
}

export interface HookAgent {
  readonly agent: Agent;
  readonly seams: Seams;
  readonly model: ScriptedModel;
  readonly logger: SeamLogger & { readonly lines: string[] };
  /** Commands the `Bash` tool (and friends) actually ran, as `<tool>:<command>`. */
  readonly ran: string[];
  /** Runs one prompt to idle. */
  send(prompt: string): Promise<void>;
  data<T = Record<string, unknown>>(type: string): T[];
  /** `hook/*` events as `invoked:<handlerId>` / `result:<handlerId>:<decision>`. */
  hookRows(): string[];
  /** Asserts the log invariants and disposes the agent. */
  finish(): Promise<void>;
}

function shellTool(name: string, ran: string[]) {
  return defineTool({
    name,
    description: `${name} (test double: records the command)`,
    parameters: z.object({ command: z.string() }),
    execute: ({ command }) => {
      ran.push(`${name}:${command}`);
      return { stdout: `ran ${command}`, exitCode: 0 };
    },
  });
}

/** A real agent with the given bridges, a scripted model and recording shell-like tools. */
export function createHookAgent(options: {
  bridges: readonly HookBridge[];
  script: Parameters<typeof scriptedModel>[0];
  cwd: string;
  approval?: ApprovalChannel;
  /** The real demo toolset confined to `cwd` instead of the recording doubles. */
  demoTools?: boolean;
  store?: SessionStore;
  /** A fixed agent id (two runs to compare log for log). */
  id?: string;
  /** More tools, registered after the demo tools or the doubles. */
  tools?: readonly ToolDefinition[];
}): HookAgent {
  const lines: string[] = [];
  const logger = { lines, error: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };
  const seams = createSeams({ logger });
  for (const bridge of options.bridges) seams.use(bridge);
  const ran: string[] = [];
  const tools = createToolRegistry();
  if (options.demoTools) for (const tool of createDemoTools({ root: options.cwd })) tools.register(tool);
  else for (const name of ['Bash', 'BashOutput', 'Edit', 'Write']) tools.register(shellTool(name, ran));
  for (const tool of options.tools ?? []) tools.register(tool);
  const model = scriptedModel(options.script);
  const agent = createAgent({
    seams,
    tools,
    model,
    logger,
    cwd: options.cwd,
    ...(options.approval ? { approval: options.approval } : {}),
    ...(options.store ? { store: options.store } : {}),
    ...(options.id === undefined ? {} : { id: options.id }),
  });
  const events = (): readonly LogEvent[] => agent.log.events;
  return {
    agent,
    seams,
    model,
    logger,
    ran,
    async send(prompt) {
      agent.followup(prompt);
      await agent.whenIdle();
    },
    data: <T>(type: string) =>
      events()
        .filter((e) => e.type === type)
        .map((e) => e.data as T),
    hookRows: () =>
      events()
        .filter((e) => e.type.startsWith('hook/'))
        .map((e) => {
          const data = e.data as { handlerId: string; decision?: string };
          return e.type === 'hook/invoked'
            ? `invoked:${data.handlerId}`
            : `result:${data.handlerId}:${data.decision}`;
        }),
    async finish() {
      await agent.dispose();
      expect(checkInvariants(agent.log.events)).toEqual([]);
    },
  };
}

/** Text blocks joined. */
export function textOf(content: readonly ContentBlock[] | JsonValue | undefined): string {
  if (!Array.isArray(content)) return '';
  return (content as { type?: string; text?: string }[])
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
}

/** The text of every message of the model request `index`, in order. */
export function requestTexts(model: ScriptedModel, index: number): string[] {
  const request = model.requests[index];
  if (request === undefined) return [];
  return request.messages.map((message) => textOf(message.content));
}

/** Core log event types (no `inbox/*`), with `context/message`s spelled out. */
export function rows(events: readonly LogEvent[]): string[] {
  return coreTurnEvents(events).map((event) => {
    const data = event.data as { content?: ContentBlock[]; callId?: string; handlerId?: string };
    if (event.type === 'context/message') return `context:${textOf(data.content)}`;
    if (event.type === 'tool/call' || event.type === 'tool/result') return `${event.type}:${data.callId}`;
    if (event.type.startsWith('hook/')) return `${event.type}:${data.handlerId}`;
    return event.type;
  });
}

/** Gone, or a zombie waiting for a parent that is not ours to reap: no live process either way. */
export function isGone(pid: number): boolean {
  if (existsSync('/proc/self/stat')) {
    try {
      return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? true;
    } catch {
      return true;
    }
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** Polls `predicate` every 10 ms for up to `ms`; resolves whether it came true. */
export async function waitUntil(predicate: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}
