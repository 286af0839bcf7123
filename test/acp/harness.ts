import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, expect } from 'vitest';
import { z } from 'zod';
import { type AcpSessionRequest, type ServeAcpOptions, serveAcp } from '../../bridges/acp/index.js';
import { createAgent, createToolRegistry } from '../../machines/index.js';
import { type ScriptStep, scriptedModel } from '../../model/index.js';
import type { ModelAdapter } from '../../model/types.js';
import { createSeams } from '../../seams/index.js';
import type { Seams } from '../../seams/types.js';
import { checkInvariants, readJsonlLog } from '../../session/index.js';
import { defineTool } from '../../tools/index.js';
import type { ToolRegistry } from '../../tools/types.js';

/** Two in-memory stream ends: what the agent writes, the client reads, and back. */
export function memoryStreams(): { agentStream: acp.Stream; clientStream: acp.Stream } {
  const toClient = new TransformStream<acp.AnyMessage, acp.AnyMessage>();
  const toAgent = new TransformStream<acp.AnyMessage, acp.AnyMessage>();
  return {
    agentStream: { writable: toClient.writable, readable: toAgent.readable },
    clientStream: { writable: toAgent.writable, readable: toClient.readable },
  };
}

/** How the test's editor answers `session/request_permission` (in order; `cancelled` when none is left). */
export type PermissionScript = (acp.PermissionOptionKind | 'cancelled')[];

export interface EditorRecord {
  readonly updates: acp.SessionNotification[];
  readonly permissions: acp.RequestPermissionRequest[];
}

/** A client app that records every update and answers permission requests from a script. */
export function createEditor(
  permissionAnswers: PermissionScript = [],
  /** Answers instead of the script, e.g. later, when the test says so. */
  onPermission?: (params: acp.RequestPermissionRequest) => Promise<acp.RequestPermissionResponse>,
): {
  app: acp.ClientApp;
  record: EditorRecord;
} {
  const record: EditorRecord = { updates: [], permissions: [] };
  const app = acp
    .client({ name: 'test-editor' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      record.updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      record.permissions.push(params);
      if (onPermission) return onPermission(params);
      const answer = permissionAnswers.shift() ?? 'cancelled';
      if (answer === 'cancelled') return { outcome: { outcome: 'cancelled' } };
      const option = params.options.find((candidate) => candidate.kind === answer);
      return { outcome: { outcome: 'selected', optionId: option?.optionId ?? 'missing' } };
    });
  return { app, record };
}

export const echoTool = defineTool({
  name: 'echo',
  description: 'Echo the text',
  parameters: z.object({ text: z.string() }),
  kind: 'read',
  execute: ({ text }) => text,
});

export const failTool = defineTool({
  name: 'fail',
  description: 'Always fails',
  parameters: z.object({}),
  kind: 'execute',
  execute: () => {
    throw new Error('the disk is on fire');
  },
});

/** What a test's session setup may add: notices for the editor and cleanup (MCP servers). */
export interface SessionExtras {
  notices?: readonly string[];
  close?(): Promise<void>;
}

export interface AcpFixtureOptions {
  /** The model script of each session, in the order sessions are created. */
  scripts: ScriptStep[][];
  /** Extra setup on each session's seams and tools (plugins, hooks). */
  setup?: (
    seams: Seams,
    tools: ToolRegistry,
    request: AcpSessionRequest,
  ) => void | SessionExtras | Promise<void | SessionExtras>;
  permissions?: PermissionScript;
  /** A model for every session instead of the scripts (e.g. one that does not stream). */
  model?: ModelAdapter;
  sessionsDir?: string;
  serve?: Partial<ServeAcpOptions>;
}

/** An ACP server on scripted sessions, the SDK client connected in memory, and what it saw. */
export function createAcpFixture(options: AcpFixtureOptions) {
  const sessionsDir = options.sessionsDir ?? mkdtempSync(path.join(tmpdir(), 'seamchart-acp-'));
  const scripts = [...options.scripts];
  const { agentStream, clientStream } = memoryStreams();
  const server = serveAcp({
    sessionsDir,
    stream: agentStream,
    agentInfo: { name: 'seamchart', version: 'test' },
    async createSession(request) {
      const seams = createSeams({ logger: request.logger });
      const tools = createToolRegistry();
      tools.register(echoTool);
      tools.register(failTool);
      const extras = (await options.setup?.(seams, tools, request)) ?? {};
      const model = options.model ?? scriptedModel(scripts.shift() ?? []);
      const agent = createAgent({
        seams,
        tools,
        model,
        store: request.store,
        approval: request.approval,
        cwd: request.cwd,
        cancelGraceMs: 200,
      });
      return { agent, seams, tools, ...extras };
    },
    ...options.serve,
  });
  const editor = createEditor(options.permissions ?? []);
  let closing: Promise<void> | undefined;
  const connection = editor.app.connect(clientStream);
  return {
    sessionsDir,
    server,
    connection,
    client: connection.agent,
    record: editor.record,
    /** Updates of one session, without the session id. */
    updatesOf(sessionId: string): acp.SessionUpdate[] {
      return editor.record.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
    },
    async initialize(): Promise<acp.InitializeResponse> {
      return connection.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
      });
    },
    async newSession(cwd = sessionsDir, mcpServers: acp.McpServer[] = []): Promise<string> {
      const response = await connection.agent.request(acp.methods.agent.session.new, { cwd, mcpServers });
      return response.sessionId;
    },
    prompt(sessionId: string, text: string): Promise<acp.PromptResponse> {
      return connection.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text }],
      });
    },
    /** Closes the connection; every agent is disposed; then each session file must check clean. */
    close(): Promise<void> {
      closing ??= (async () => {
        connection.close();
        await server.close();
      })();
      return closing;
    },
    /** Every session file in the directory loads without repair and passes the invariants. */
    async expectCleanSessions(): Promise<number> {
      const files = readdirSync(sessionsDir).filter((name) => /^[0-9a-f-]{36}\.jsonl$/.test(name));
      for (const file of files) {
        const log = await readJsonlLog(path.join(sessionsDir, file));
        expect(log.repairs).toEqual([]);
        expect(checkInvariants(log.events)).toEqual([]);
      }
      return files.length;
    },
    cleanup(): void {
      rmSync(sessionsDir, { recursive: true, force: true });
    },
  };
}

export type AcpFixture = ReturnType<typeof createAcpFixture>;

/**
 * A fixture factory for one test file: after each test every fixture is closed (agents disposed),
 * every session file it wrote must pass `checkInvariants`, and its directory is removed.
 */
export function useAcpFixtures(): (options: AcpFixtureOptions) => AcpFixture {
  const open: AcpFixture[] = [];
  afterEach(async () => {
    const fixtures = open.splice(0);
    // Fixtures may share a sessions directory: close all, then check, then remove.
    for (const fixture of fixtures) await fixture.close();
    for (const fixture of fixtures) if (existsSync(fixture.sessionsDir)) await fixture.expectCleanSessions();
    for (const fixture of fixtures) fixture.cleanup();
  });
  return (options) => {
    const fixture = createAcpFixture(options);
    open.push(fixture);
    return fixture;
  };
}

/** The text an editor would show from message chunks of one kind. */
export function chunkText(
  updates: readonly acp.SessionUpdate[],
  kind: 'agent_message_chunk' | 'agent_thought_chunk' | 'user_message_chunk',
): string {
  return updates
    .flatMap((update) =>
      update.sessionUpdate === kind && update.content.type === 'text' ? [update.content.text] : [],
    )
    .join('');
}

/** Waits until `predicate` holds (polling the event loop), failing after `timeoutMs`. */
export async function until(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
