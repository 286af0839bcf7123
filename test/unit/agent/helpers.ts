import { expect } from 'vitest';
import type { ContentBlock, JsonValue, LogEvent } from '../../../kernel/index.js';
import { type Agent, createAgent } from '../../../machines/agent/createAgent.js';
import type { AgentOptions } from '../../../machines/agent/options.js';
import { type ScriptedModel, scriptedModel } from '../../../model/index.js';
import { createSeams, notifySeamNames } from '../../../seams/index.js';
import type { NotifySeamName, SeamLogger, Seams } from '../../../seams/types.js';
import { checkInvariants, checkLedger, coreTurnEvents } from '../../../session/index.js';
import { createToolRegistryCore } from '../../../tools/index.js';
import type { ToolRegistryCore } from '../../../tools/types.js';

export interface Notification {
  readonly seam: NotifySeamName;
  readonly payload: Record<string, unknown>;
}

/** Records every notify-mode event of `seams`, in order. */
export function recordNotifications(seams: Seams): Notification[] {
  const recorded: Notification[] = [];
  for (const seam of notifySeamNames) {
    seams.on(seam, ((payload: Record<string, unknown>) => {
      recorded.push({ seam, payload });
    }) as never);
  }
  return recorded;
}

/** A logger that keeps what it is told (tests assert on it instead of printing). */
export function memoryLogger(): SeamLogger & { readonly lines: string[] } {
  const lines: string[] = [];
  return { lines, error: (message) => lines.push(message), warn: (message) => lines.push(message) };
}

export interface TestAgent {
  readonly agent: Agent;
  readonly seams: Seams;
  readonly model: ScriptedModel;
  readonly tools: ToolRegistryCore;
  readonly notifications: Notification[];
  readonly logger: ReturnType<typeof memoryLogger>;
  /** Log event types in order. */
  types(): string[];
  /** Events of one type, data only. */
  data<T = Record<string, unknown>>(type: string): T[];
  /** Payloads of one notification seam. */
  seen(seam: NotifySeamName): Record<string, unknown>[];
  /** Asserts the log invariants (and the inbox ledger when asked). */
  expectInvariants(options?: { ledger?: boolean; allowOutstanding?: boolean }): void;
}

/** Builds an agent over real seams, log and scripted model; listeners are registered by `register` first. */
export function createTestAgent(options: {
  script: Parameters<typeof scriptedModel>[0];
  register?: (seams: Seams) => void;
  tools?: ToolRegistryCore;
  agent?: Partial<Omit<AgentOptions, 'seams' | 'model' | 'tools'>>;
  seams?: Seams;
}): TestAgent {
  const logger = memoryLogger();
  const seams = options.seams ?? createSeams({ logger });
  const notifications = recordNotifications(seams);
  options.register?.(seams);
  const model = scriptedModel(options.script);
  const tools = options.tools ?? createToolRegistryCore();
  const agent = createAgent({ seams, tools, model, logger, ...options.agent });
  return {
    agent,
    seams,
    model,
    tools,
    notifications,
    logger,
    types: () => coreTurnEvents(agent.log.events).map((event) => event.type),
    data: <T>(type: string) => agent.log.events.filter((e) => e.type === type).map((e) => e.data as T),
    seen: (seam) => notifications.filter((n) => n.seam === seam).map((n) => n.payload),
    expectInvariants(check = {}) {
      expect(checkInvariants(agent.log.events)).toEqual([]);
      if (check.ledger) {
        const ledger = notifications.filter((n) => n.seam.startsWith('agent/inbox/'));
        const allowOutstanding = check.allowOutstanding === true;
        expect(checkLedger(ledger, { allowOutstanding })).toEqual([]);
      }
    },
  };
}

/** The text of a content array (text blocks joined). */
export function textOf(content: readonly ContentBlock[] | JsonValue | undefined): string {
  if (!Array.isArray(content)) return '';
  return (content as { type?: string; text?: string }[])
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
}

/** Turn-end reasons in order. */
export function reasons(events: readonly LogEvent[]): unknown[] {
  return events.filter((e) => e.type === 'turn/end').map((e) => (e.data as { reason: unknown }).reason);
}

/** Resolves after `ms` of real time. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A promise with its resolve function exposed. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
