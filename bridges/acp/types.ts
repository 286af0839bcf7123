import type { Stream } from '@agentclientprotocol/sdk';
import type { AgentHandle, ApprovalChannel, SeamLogger, Seams } from '../../seams/index.js';
import type { SessionStore } from '../../session/index.js';
import type { ApprovalDeskOf } from './permission.js';

/** An MCP server over stdio, as `session/new` names it (env as a plain record). */
export interface AcpMcpServer {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** What `createSession` receives for one ACP session. */
export interface AcpSessionRequest {
  /** The ACP session id, which is the agent id (and names the session file). */
  readonly sessionId: string;
  /** The session's working directory (absolute). */
  readonly cwd: string;
  /** The stdio MCP servers the editor asked for (connect them with `connectMcpServers`). */
  readonly mcpServers: readonly AcpMcpServer[];
  /** `true` for `session/load`: the store holds the earlier history. */
  readonly resume: boolean;
  /** The session's JSONL store: pass it to `createAgent({ store })`. */
  readonly store: SessionStore;
  /** Asks the editor (`session/request_permission`): pass it to `createAgent({ approval })`. */
  readonly approval: ApprovalChannel;
  /**
   * The session's logger: pass it to `createSeams({ logger })`. Hook `systemMessage`s (SessionStart,
   * Stop, …, which bridges report through `logger.warn`) are shown to the editor; the rest goes to
   * the server's logger.
   */
  readonly logger: SeamLogger;
  /** The session's current mode id (`session/set_mode` changes it); `undefined` when no modes are offered. */
  mode(): string | undefined;
}

/** The agent of one ACP session, as the bridge drives it. */
export interface AcpAgent extends AgentHandle, ApprovalDeskOf {
  dispose(): Promise<void>;
  /** Resolves once the agent is idle or suspended. */
  whenIdle(): Promise<void>;
}

/** What `createSession` returns: the agent, the seams it was created with, and what to clean up. */
export interface AcpSession {
  readonly agent: AcpAgent;
  /** The agent's registry: the bridge registers its listeners there, filtered to this agent. */
  readonly seams: Seams;
  /** Looks up a tool's ACP `kind` (a tool registry works). */
  readonly tools?: { get(name: string): { readonly kind?: string | undefined } | undefined };
  /** Problems the editor should see (an MCP server that failed to start), sent as a message. */
  readonly notices?: readonly string[];
  /** Runs after the agent is disposed (e.g. closes MCP servers). */
  close?(): Promise<void>;
}

/** Options of `serveAcp`. */
export interface ServeAcpOptions {
  createSession(request: AcpSessionRequest): AcpSession | Promise<AcpSession>;
  /** Where session files live: `<dir>/<sessionId>.jsonl`. */
  sessionsDir: string;
  /** The JSON-RPC transport; the process's stdin/stdout when absent. */
  stream?: Stream;
  /** Stop reason of a turn whose prompt was blocked (default `refusal`). */
  rejectedStopReason?: 'refusal' | 'cancelled';
  /** `agentInfo` of `initialize`. */
  agentInfo?: { name: string; version: string; title?: string };
  /**
   * Session modes offered in `session/new` and `session/load` and changed with `session/set_mode`
   * (announced with `current_mode_update`); sessions start in `initial` (default: the first).
   */
  modes?: { available: readonly { id: string; name: string; description?: string }[]; initial?: string };
  /** Where the bridge reports what the editor cannot see (default: stderr). */
  logger?: SeamLogger;
}

/** A running ACP server. */
export interface AcpServer {
  /** Resolves once the connection closed and every session's agent is disposed. */
  readonly closed: Promise<void>;
  /** Closes the connection (and so disposes every session). */
  close(): Promise<void>;
}
