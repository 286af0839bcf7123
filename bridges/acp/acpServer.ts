import { randomUUID } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import type { SessionStore } from '../../session/index.js';
import { createJsonlStore, openJsonlStore } from '../../session/index.js';
import { toPromptContent } from './content.js';
import { createSessionLogger } from './feedback.js';
import { askPendingAgain, createPermissionChannel, type PermissionLink } from './permission.js';
import { bridgeSession, type SessionBridge } from './sessionBridge.js';
import {
  listSessionFiles,
  readSessionCwd,
  readSessionMode,
  resolveSessionFile,
  writeSessionMode,
} from './sessionFiles.js';
import { toToolKindFrom } from './toolKind.js';
import type { AcpMcpServer, AcpServer, AcpSession, ServeAcpOptions } from './types.js';

interface LiveSession {
  readonly bridge: SessionBridge;
  /** Resolves once the agent is idle or suspended (a batch whose questions were deferred has suspended). */
  readonly settled: () => Promise<void>;
  /** Whether a `session/request_permission` question is open (or was deferred when the editor went). */
  readonly waiting: () => boolean;
  /** The mode `session/set_mode` chose last. */
  mode: string | undefined;
}

/** The ACP server itself (`serveAcp` loads this module, and with it the SDK, on first use). */
export function startAcpServer(options: ServeAcpOptions): AcpServer {
  const logger = options.logger ?? {
    error: (message: string) => process.stderr.write(`seamchart acp: ${message}\n`),
  };
  const report = (message: string): void => logger.error(message);
  const rejectedStopReason = options.rejectedStopReason ?? 'refusal';
  const sessions = new Map<string, LiveSession>();
  const modes = resolveModes(options.modes);
  const modeState = (live: LiveSession): acp.SessionModeState | undefined =>
    modes === undefined || live.mode === undefined
      ? undefined
      : { currentModeId: live.mode, availableModes: modes.available };
  let client: acp.AgentContext | undefined;

  const notifier = (sessionId: string) => (update: acp.SessionUpdate) =>
    client ? client.notify(acp.methods.client.session.update, { sessionId, update }) : Promise.resolve();

  const open = async (
    sessionId: string,
    cwd: string,
    rawServers: readonly acp.McpServer[],
    store: SessionStore,
    resume: boolean,
    mode: string | undefined = modes?.initial,
  ): Promise<{ live: LiveSession; notices: string[]; announce(): void; askAgain(): void }> => {
    const { servers, unsupported } = splitMcpServers(rawServers);
    // Messages for the editor wait until it knows the session id (after the response).
    let announce!: () => void;
    const announced = new Promise<void>((resolve) => {
      announce = resolve;
    });
    const say = (text: string): void => {
      void announced
        .then(() =>
          notifier(sessionId)({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }),
        )
        .catch(() => {});
    };
    let session: AcpSession | undefined;
    let live: LiveSession | undefined;
    const kindOf = (name: string) => toToolKindFrom(session, name);
    const link: PermissionLink = {
      sessionId,
      kindOf,
      report,
      requestPermission: (params) => {
        if (!client) throw new Error('the connection is closed');
        return client.request(acp.methods.client.session.requestPermission, params);
      },
      disconnected: () => connection.signal.aborted,
    };
    const approval = createPermissionChannel(link);
    try {
      session = await options.createSession({
        sessionId,
        cwd,
        mcpServers: servers,
        resume,
        store,
        approval,
        logger: createSessionLogger(say, logger),
        mode: () => live?.mode ?? mode,
      });
    } catch (error) {
      await store.close().catch(() => {});
      throw acp.RequestError.internalError(
        { sessionId },
        `createSession failed: ${(error as Error).message}`,
      );
    }
    const bridge = bridgeSession(session, {
      sessionId,
      rejectedStopReason,
      notify: notifier(sessionId),
      report,
    });
    const agent = session.agent;
    live = {
      bridge,
      mode,
      settled: () => agent.whenIdle(),
      waiting: () => approval.waiting,
    };
    sessions.set(sessionId, live);
    const notices = [...unsupported, ...(session.notices ?? [])];
    for (const notice of notices) report(notice);
    // Problems found while opening go first.
    if (notices.length > 0) say(notices.map((notice) => `⚠ ${notice}`).join('\n'));
    // A suspended session's open questions are asked again of this editor once it knows the session.
    const askAgain = (): void => void askPendingAgain(link, agent);
    return { live, notices, announce, askAgain };
  };

  const sessionOf = (sessionId: string): LiveSession => {
    const live = sessions.get(sessionId);
    if (!live) throw acp.RequestError.sessionNotFound(sessionId);
    return live;
  };

  const app = acp
    .agent({ name: options.agentInfo?.name ?? 'seamchart' })
    .onConnect((connection) => {
      client = connection.client;
    })
    .onRequest(acp.methods.agent.initialize, () => ({
      // v1 is the only version this agent speaks; a client asking for another gets it and decides.
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        sessionCapabilities: { list: {}, close: {} },
        promptCapabilities: { image: false, audio: false, embeddedContext: false },
        mcpCapabilities: { http: false, sse: false },
      },
      authMethods: [],
      agentInfo: options.agentInfo ?? { name: 'seamchart', version: '0.0.0' },
    }))
    .onRequest(acp.methods.agent.session.new, async ({ params }) => {
      const cwd = await validateCwd(params.cwd);
      const sessionId = randomUUID();
      const file = path.join(options.sessionsDir, `${sessionId}.jsonl`);
      const store = await createJsonlStore(file, { id: sessionId, cwd }).catch((error: unknown) => {
        throw acp.RequestError.internalError({ file }, (error as Error).message);
      });
      const opened = await open(sessionId, cwd, params.mcpServers, store, false).catch(
        async (error: unknown) => {
          // A session that never opened leaves no file behind (the store was closed by open()).
          await rm(file, { force: true });
          throw error;
        },
      );
      setImmediate(opened.announce);
      const state = modeState(opened.live);
      return state === undefined ? { sessionId } : { sessionId, modes: state };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params }) => {
      // Validated before the id names anything on disk.
      const file = resolveSessionFile(options.sessionsDir, params.sessionId);
      if (sessions.has(params.sessionId)) {
        throw acp.RequestError.invalidRequest(
          { sessionId: params.sessionId },
          'this session is already open',
        );
      }
      const cwd = await validateCwd(params.cwd);
      const recorded = await readSessionCwd(file);
      if (recorded !== undefined && path.resolve(recorded) !== cwd) {
        throw acp.RequestError.invalidParams(
          { sessionId: params.sessionId, cwd: recorded },
          `session ${params.sessionId} was started in ${recorded}, not ${cwd}`,
        );
      }
      const store = await openJsonlStore(file, { id: params.sessionId }).catch((error: unknown) => {
        throw acp.RequestError.invalidParams({ file }, (error as Error).message);
      });
      // The mode the session was left in (kept beside its file), when it is still offered.
      const kept = await readSessionMode(file);
      const mode = modes?.available.some((m) => m.id === kept) ? kept : modes?.initial;
      const { live, announce, askAgain } = await open(
        params.sessionId,
        cwd,
        params.mcpServers,
        store,
        true,
        mode,
      );
      await live.bridge.replay();
      setImmediate(announce);
      setImmediate(askAgain);
      const state = modeState(live);
      return state === undefined ? {} : { modes: state };
    })
    .onRequest(acp.methods.agent.session.prompt, ({ params }) =>
      sessionOf(params.sessionId).bridge.prompt(toPromptContent(params.prompt)),
    )
    .onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
      const live = sessionOf(params.sessionId);
      if (modes === undefined || !modes.available.some((mode) => mode.id === params.modeId)) {
        throw acp.RequestError.invalidParams(
          { modeId: params.modeId },
          `Expected modeId to be one of ${(modes?.available ?? []).map((mode) => mode.id).join(', ') || '(no modes offered)'}, got ${JSON.stringify(params.modeId)}`,
        );
      }
      live.mode = params.modeId;
      await writeSessionMode(resolveSessionFile(options.sessionsDir, params.sessionId), params.modeId).catch(
        (error: unknown) =>
          report(
            `session ${params.sessionId}: the mode is not kept for session/load: ${(error as Error).message}`,
          ),
      );
      // The next call is decided in the new mode; the editor hears it as an update too.
      await notifier(params.sessionId)({
        sessionUpdate: 'current_mode_update',
        currentModeId: params.modeId,
      });
      return {};
    })
    .onRequest(acp.methods.agent.session.close, async ({ params }) => {
      const live = sessions.get(params.sessionId);
      if (!live) throw acp.RequestError.resourceNotFound(params.sessionId);
      sessions.delete(params.sessionId);
      // Its agent and MCP servers end now; prompts still open answer `cancelled`.
      await live.bridge.dispose();
      return {};
    })
    .onRequest(acp.methods.agent.session.list, async ({ params }) => {
      const cwd = params.cwd ?? undefined;
      return listSessionFiles(options.sessionsDir, {
        ...(cwd === undefined ? {} : { cwd: path.resolve(cwd) }),
        ...(params.cursor == null ? {} : { cursor: params.cursor }),
      });
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.bridge.cancel();
    });

  const connection = app.connect(options.stream ?? stdioStream());
  const closed = connection.closed
    .catch(() => {})
    .then(async () => {
      client = undefined;
      // An open question was deferred when the editor went: its batch suspends first, so the turn waits on disk.
      await Promise.all(
        [...sessions.values()].map(async (live) => {
          if (live.waiting()) await live.settled();
          await live.bridge.dispose();
        }),
      );
      sessions.clear();
    });
  return {
    closed,
    close() {
      connection.close();
      return closed;
    },
  };
}

/** The process's stdin/stdout as newline-delimited JSON-RPC. */
function stdioStream(): acp.Stream {
  return acp.ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
}

async function validateCwd(cwd: string): Promise<string> {
  if (!path.isAbsolute(cwd)) {
    throw acp.RequestError.invalidParams(
      { cwd },
      `Expected cwd to be an absolute path, got ${JSON.stringify(cwd)}`,
    );
  }
  const isDirectory = await stat(cwd).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
  if (!isDirectory) throw acp.RequestError.invalidParams({ cwd }, `cwd ${cwd} is not a directory`);
  return path.resolve(cwd);
}

/** Stdio servers for the session; http and sse are not advertised, so they are reported. */
function splitMcpServers(raw: readonly acp.McpServer[]): { servers: AcpMcpServer[]; unsupported: string[] } {
  const servers: AcpMcpServer[] = [];
  const unsupported: string[] = [];
  for (const server of raw) {
    if ('type' in server && (server.type === 'http' || server.type === 'sse')) {
      unsupported.push(
        `MCP server "${server.name}" uses ${server.type}; seamchart connects stdio servers only`,
      );
      continue;
    }
    const stdio = server as acp.McpServerStdio;
    servers.push({
      name: stdio.name,
      command: stdio.command,
      args: [...stdio.args],
      env: Object.fromEntries(stdio.env.map((entry) => [entry.name, entry.value])),
    });
  }
  return { servers, unsupported };
}

/** The offered modes with the starting one checked. */
function resolveModes(
  raw: ServeAcpOptions['modes'],
): { available: acp.SessionMode[]; initial: string } | undefined {
  if (raw === undefined) return undefined;
  const available = raw.available.map((mode) => ({ ...mode }));
  const initial = raw.initial ?? available[0]?.id;
  if (initial === undefined || !available.some((mode) => mode.id === initial)) {
    throw new TypeError(
      `Expected the \`modes.initial\` option of serveAcp() to be one of the offered mode ids, got ${JSON.stringify(initial)}`,
    );
  }
  return { available, initial };
}
