import { describeReceived } from '../kernel/index.js';
import type { AgentOptions } from '../machines/index.js';
import { type Agent, createAgent, createToolRegistry } from '../machines/index.js';
import { type ScriptedModel, type ScriptStep, scriptedModel } from '../model/index.js';
import type { SeamLogger, SeamPlugin, Seams } from '../seams/index.js';
import { createSeams } from '../seams/index.js';
import {
  type CheckInvariantsOptions,
  checkInvariants,
  checkLedger,
  coreTurnEvents,
} from '../session/index.js';
import type { ToolDefinition, ToolRegistryCore } from '../tools/index.js';
import { InvariantViolationError } from './invariantViolationError.js';
import { type NotificationRecording, recordNotifications } from './recordNotifications.js';

/** What `createTestAgent` builds the agent from. */
export interface TestAgentOptions {
  /** The model's answers, one per request (`scriptedModel` steps). */
  readonly script: readonly ScriptStep[];
  /** Plugins under test, applied with `seams.use` in order. */
  readonly plugins?: readonly SeamPlugin[];
  /**
   * The registry to use instead of fresh seams: one with hooks or listeners already registered, or one
   * shared by several test agents (each recording then holds every agent's notifications, by
   * `agentId`). Its listeners run before the recording's.
   */
  readonly seams?: Seams;
  /** Tool definitions to register, or a registry to use as is. */
  readonly tools?: readonly ToolDefinition[] | ToolRegistryCore;
  /** Further `createAgent` options (`maxParallelToolCalls`, `approval`, `store`, …). */
  readonly options?: Omit<AgentOptions, 'seams' | 'tools' | 'model'>;
}

/**
 * What `expectInvariants` checks beyond the defaults: `checkInvariants` options (`stepContexts`,
 * `open`, `atRest`) and the ledger's `allowOutstanding`.
 */
export interface ExpectInvariantsOptions extends Readonly<CheckInvariantsOptions> {
  /** Accept inbox items still waiting (a check taken before `dispose()`). */
  readonly allowOutstanding?: boolean;
}

/** A running agent with its seams, model and a recording of every notification. */
export interface TestAgent {
  readonly agent: Agent;
  readonly seams: Seams;
  readonly model: ScriptedModel;
  readonly tools: ToolRegistryCore;
  /** Every notify-mode notification since the agent was created, in order. */
  readonly notifications: NotificationRecording;
  /** The types of the log's turn events in order (`coreTurnEvents`: the durable inbox's `inbox/*` left out). */
  eventTypes(): string[];
  /** The `data` of every log event of one type, in order. */
  eventData<TData = Record<string, unknown>>(type: string): TData[];
  /**
   * Throws an `InvariantViolationError` listing every broken log invariant (`checkInvariants`) and
   * inbox-ledger entry (`checkLedger`); returns quietly when the run is sound.
   */
  expectInvariants(options?: ExpectInvariantsOptions): void;
}

/**
 * Creates an agent for a plugin test: a scripted model, the plugins applied to fresh seams, the tools
 * registered, and notifications recorded from the start.
 * @param rawOptions the script, and optionally plugins, seams, tools and further agent options
 * @throws TypeError when `plugins` is not an array, `seams` is not a registry, or `tools` is neither an
 *   array nor a registry
 * @example
 * const { agent, expectInvariants } = createTestAgent({ plugins: [policy], script: [{ text: 'hi' }] });
 * agent.followup('hello');
 * await agent.whenIdle();
 * await agent.dispose();
 * expectInvariants();
 */
export function createTestAgent(rawOptions: TestAgentOptions): TestAgent {
  const { plugins = [], options = {} } = rawOptions;
  if (!Array.isArray(plugins)) {
    throw new TypeError(
      `Expected the \`plugins\` option of createTestAgent() to be an array of plugins, got ${describeReceived(plugins)}`,
    );
  }
  const tools = resolveTools(rawOptions.tools);
  const model = scriptedModel(rawOptions.script);
  const seams = resolveSeams(rawOptions.seams, options.logger);
  const notifications = recordNotifications(seams);
  for (const plugin of plugins) seams.use(plugin);
  const agent = createAgent({ ...options, seams, tools, model });
  return {
    agent,
    seams,
    model,
    tools,
    notifications,
    eventTypes: () => coreTurnEvents(agent.log.events).map((event) => event.type),
    eventData: <TData>(type: string) =>
      agent.log.events.filter((event) => event.type === type).map((event) => event.data as TData),
    expectInvariants({ allowOutstanding, ...check } = {}) {
      const violations = [
        ...checkInvariants(agent.log.events, check),
        ...checkLedger(notifications.events, { allowOutstanding: allowOutstanding === true }),
      ];
      if (violations.length > 0) throw new InvariantViolationError(violations);
    },
  };
}

function resolveSeams(raw: TestAgentOptions['seams'], logger: SeamLogger | undefined): Seams {
  if (raw === undefined) return createSeams(logger === undefined ? {} : { logger });
  if (raw !== null && typeof raw === 'object' && typeof (raw as Seams).on === 'function') return raw;
  throw new TypeError(
    `Expected the \`seams\` option of createTestAgent() to be a registry from createSeams(), got ${describeReceived(raw)}`,
  );
}

function resolveTools(raw: TestAgentOptions['tools']): ToolRegistryCore {
  if (raw === undefined) return createToolRegistry();
  if (Array.isArray(raw)) {
    const registry = createToolRegistry();
    for (const tool of raw as readonly ToolDefinition[]) registry.register(tool);
    return registry;
  }
  if (raw !== null && typeof raw === 'object' && typeof (raw as ToolRegistryCore).register === 'function') {
    return raw as ToolRegistryCore;
  }
  throw new TypeError(
    `Expected the \`tools\` option of createTestAgent() to be an array of tool definitions or a tool registry, got ${describeReceived(raw)}`,
  );
}
