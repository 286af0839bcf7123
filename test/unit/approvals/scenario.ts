import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { HookContext } from '../../../kernel/index.js';
import { type Agent, createAgent } from '../../../machines/agent/createAgent.js';
import { createToolRegistry } from '../../../machines/toolCall/createToolRegistry.js';
import { scriptedModel } from '../../../model/index.js';
import type { ScriptStep } from '../../../model/script.js';
import { createSeams } from '../../../seams/index.js';
import type { Seams } from '../../../seams/types.js';
import {
  checkInvariants,
  createJsonlStore,
  formatViolation,
  openJsonlStore,
} from '../../../session/index.js';
import type { SessionStore } from '../../../session/types.js';
import { defineTool } from '../../../tools/index.js';

/** Bodies that ran, by call id and input, in the order they started. */
export type Ran = { callId: string; tool: string; args: unknown }[];

/**
 * The tools of the approval scenarios: `deploy` (parallel, asks), `read` (parallel, allowed), `wipe` (exclusive,
 * allowed); every body records that it ran.
 */
export function createApprovalTools(
  ran: Ran,
  options: { deployConcurrency?: 'parallel' | 'exclusive' } = {},
) {
  const tools = createToolRegistry();
  const body = (tool: string) => (args: unknown, exec: { callId: string }) => {
    ran.push({ callId: exec.callId, tool, args });
    return `${tool} done`;
  };
  tools.register(
    defineTool({
      name: 'deploy',
      description: 'deploy',
      parameters: z.object({ target: z.string(), env: z.string().optional() }),
      concurrency: options.deployConcurrency ?? 'parallel',
      execute: body('deploy'),
    }),
  );
  tools.register(
    defineTool({
      name: 'read',
      description: 'read',
      parameters: z.object({}),
      concurrency: 'parallel',
      execute: body('read'),
    }),
  );
  tools.register(
    defineTool({
      name: 'wipe',
      description: 'wipe',
      parameters: z.object({}),
      concurrency: 'exclusive',
      execute: body('wipe'),
    }),
  );
  return tools;
}

/**
 * The policy of the scenarios: `deploy` is rewritten by `tools/prepare` (env: prod) and asked about by the
 * `change-control` pre-execute listener; everything else is allowed.
 */
export function registerApprovalPolicy(seams: Seams): void {
  seams.on(
    'tools/prepare',
    (ctx) =>
      ctx.name === 'deploy' ? { kind: 'rewrite', arguments: { ...ctx.arguments, env: 'prod' } } : undefined,
    { name: 'pin-env' },
  );
  seams.on(
    'tools/pre-execute',
    (exec) =>
      exec.name === 'deploy'
        ? { kind: 'ask', reason: `deploy to ${String((exec.arguments as { target: string }).target)}` }
        : { kind: 'allow' },
    { name: 'change-control' },
  );
}

export const ctx = (text: string): HookContext => ({
  content: [{ type: 'text', text }],
  source: { kind: 'plugin', plugin: 'test' },
});

/** A fresh folder for session files, removed by `cleanup`. */
export function createSessionDir(): { dir: string; file: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'seamchart-approvals-'));
  return {
    dir,
    file: join(dir, 'session.jsonl'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface ApprovalAgentOptions {
  store: SessionStore;
  script: readonly ScriptStep[];
  ran: Ran;
  maxParallelToolCalls?: number;
  deployConcurrency?: 'parallel' | 'exclusive';
  /** Extra listeners of this process (guards, contexts). */
  register?: (seams: Seams) => void;
}

/** An agent of the approval scenarios on `store`, deferring every ask. */
export function createApprovalAgent(options: ApprovalAgentOptions): Agent {
  const seams = createSeams();
  registerApprovalPolicy(seams);
  options.register?.(seams);
  return createAgent({
    seams,
    tools: createApprovalTools(
      options.ran,
      options.deployConcurrency ? { deployConcurrency: options.deployConcurrency } : {},
    ),
    model: scriptedModel(options.script),
    store: options.store,
    approval: 'defer',
    ...(options.maxParallelToolCalls === undefined
      ? {}
      : { maxParallelToolCalls: options.maxParallelToolCalls }),
  });
}

export { createJsonlStore, openJsonlStore };

/** The violations of a log, as text (empty when it checks clean). */
export function violationsOf(events: Agent['log']['events'], options: { atRest?: boolean } = {}): string[] {
  return checkInvariants(events, options).map(formatViolation);
}

/** The log's event types, without the inbox's. */
export function typesOf(events: Agent['log']['events']): string[] {
  return events.filter((event) => !event.type.startsWith('inbox/')).map((event) => event.type);
}
