import { homedir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { type Command, Option } from 'commander';
import type { McpStdioServer, PermissionMode, SeamLogger } from '../index.js';
import {
  assertDistinctServers,
  createAgent,
  createDemoTools,
  createSeams,
  createToolRegistry,
  formatCapabilities,
  mergeMcpServers,
  parsePermissionMode,
  plugins,
  serveAcp,
} from '../index.js';
import type { CliCommand, CliIO, TextSink } from './command.js';
import { loadMcpServersFlag, MCP_CONFIG_HELP, registerMcpTools } from './mcpFlag.js';
import { type AgentFlags, addAgentFlags, loadBridges, resolveCwd, resolveModel } from './runFlags.js';
import { trustedProjectFiles } from './trust.js';
import { addTurnFlags, composeInstructions, resolveFlagInstructions, type TurnFlags } from './turnFlags.js';
import { packageVersion } from './version.js';

interface AcpFlags extends AgentFlags, TurnFlags {
  sessions?: string;
  mcpConfig?: string;
  rejectedStopReason?: 'refusal' | 'cancelled';
}

const EXAMPLES = `
Examples:
  seamchart acp --model openai --tools demo
  seamchart acp --model scripted:script.json --sessions /tmp/acp-sessions

An editor starts this command and speaks JSON-RPC on its stdin/stdout; logs go to stderr.
Each session works in the folder the editor names (AGENTS.md / CLAUDE.md there are instructions).
In Zed's settings.json:
  "agent_servers": { "seamchart": { "command": "seamchart", "args": ["acp", "--tools", "demo"] } }
`;

/** Claude Code's permission modes, offered as ACP session modes (`dontAsk` is for scripts, not editors). */
const SESSION_MODES = [
  { id: 'default', name: 'Default', description: 'Reads run; edits and commands ask first' },
  { id: 'acceptEdits', name: 'Accept edits', description: 'Edits inside the folder run without asking' },
  { id: 'plan', name: 'Plan', description: 'Read-only: edits are refused, commands ask first' },
  { id: 'bypassPermissions', name: 'Bypass permissions', description: 'Everything runs without asking' },
];

/** Where sessions live when `--sessions` is not given: the platform's per-user data directory. */
export function defaultSessionsDir(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): string {
  const home = env.HOME ?? homedir();
  if (platform === 'win32')
    return path.join(env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local'), 'seamchart', 'sessions');
  if (platform === 'darwin')
    return path.join(home, 'Library', 'Application Support', 'seamchart', 'sessions');
  return path.join(env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'seamchart', 'sessions');
}

/** stdout as a byte sink for the SDK: protocol lines only, written in order. */
function toByteSink(sink: TextSink): WritableStream<Uint8Array> {
  const decoder = new TextDecoder();
  return new WritableStream<Uint8Array>({
    write(chunk) {
      sink.write(decoder.decode(chunk, { stream: true }));
    },
  });
}

/** The editor's servers win over `--mcp-config`'s of the same name; the replaced ones are reported. */
function sessionServers(
  configServers: readonly McpStdioServer[],
  editorServers: readonly McpStdioServer[],
): { servers: readonly McpStdioServer[]; notices: string[] } {
  assertDistinctServers(editorServers, 'session/new mcpServers');
  const { servers, replaced } = mergeMcpServers(editorServers, configServers);
  const notices = replaced.map(
    (server) =>
      `MCP server "${server.name}" of --mcp-config is not started: the editor's server of that name is used instead`,
  );
  return { servers, notices };
}

/**
 * `seamchart acp`: the agent for ACP editors (Zed, …) over stdio, one agent per editor session,
 * with the same model, tools and hooks flags as `run`. Exit 0 when the editor closes stdin.
 */
export const acpCommand: CliCommand = {
  name: 'acp',
  configure(command: Command) {
    command.description('serve the agent to an editor over the Agent Client Protocol (stdin/stdout)');
    addTurnFlags(addAgentFlags(command))
      .option('--sessions <dir>', 'where session files are kept (default: the per-user data directory)')
      .option('--mcp-config <file>', `${MCP_CONFIG_HELP} (added to every session)`)
      .addOption(
        new Option(
          '--rejected-stop-reason <reason>',
          'what a blocked prompt answers (default refusal)',
        ).choices(['refusal', 'cancelled']),
      )
      .addHelpText('after', EXAMPLES);
  },
  async run(command: Command, io: CliIO) {
    const flags = command.opts<AcpFlags>();
    // Bad flags are found before the editor is answered: the model, hooks and MCP config load once here.
    if (flags.cwd !== undefined) await resolveCwd(flags.cwd);
    const flagInstructions = await resolveFlagInstructions(flags);
    await resolveModel(flags, io.env);
    const hookCheck = await loadBridges(flags, undefined);
    const configServers = await loadMcpServersFlag(flags.mcpConfig);
    const say = (message: string): void => {
      io.stderr.write(`seamchart acp: ${message}\n`);
    };
    for (const bridge of hookCheck) say(formatCapabilities(bridge.capabilities()));
    const logger: SeamLogger = {
      error: (message, details) => say(details?.error ? `${message}: ${String(details.error)}` : message),
      warn: (message) => say(message),
    };
    const version = packageVersion();
    const sessionsDir = path.resolve(flags.sessions ?? defaultSessionsDir(io.env));
    const { ndJsonStream } = await import('@agentclientprotocol/sdk');
    const server = serveAcp({
      sessionsDir,
      agentInfo: { name: 'seamchart', title: 'seamchart', version },
      logger,
      ...(flags.rejectedStopReason ? { rejectedStopReason: flags.rejectedStopReason } : {}),
      stream: ndJsonStream(
        toByteSink(io.stdout),
        Readable.toWeb(io.stdin as Readable) as ReadableStream<Uint8Array>,
      ),
      modes: { available: SESSION_MODES, initial: 'default' },
      async createSession({ sessionId, cwd, mcpServers, store, approval, logger: sessionLogger, mode }) {
        const { servers, notices } = sessionServers(configServers, mcpServers);
        const model = await resolveModel(flags, io.env);
        const seams = createSeams({ logger: sessionLogger });
        // The session's mode decides each call with the settings' permission rules (Claude Code's modes).
        const permissionMode = (): PermissionMode => parsePermissionMode(mode() ?? 'default') ?? 'default';
        // The editor owns stdin: nobody can be asked, so only a trusted folder's own settings load.
        const project = await trustedProjectFiles({ cwd, flags, io, canAsk: false, prefix: 'seamchart acp' });
        for (const bridge of await loadBridges(
          flags,
          path.join(sessionsDir, `${sessionId}.jsonl`),
          permissionMode,
          project === 'interrupted' ? undefined : project,
        ))
          seams.use(bridge);
        seams.use(plugins.requestRetry({ maxRetries: flags.maxRetries ?? 3 }));
        seams.on('agent/error', ({ origin, error }) => say(`${origin}: ${error.message}`), {
          agent: sessionId,
        });
        const tools = createToolRegistry();
        if (flags.tools === 'demo') for (const tool of createDemoTools({ root: cwd })) tools.register(tool);
        const instructions = await composeInstructions(flagInstructions, cwd, flags);
        const mcp = await registerMcpTools(servers, tools, { cwd, version, report: say });
        let agent: ReturnType<typeof createAgent>;
        try {
          agent = createAgent({
            seams,
            tools,
            model,
            store,
            cwd,
            approval,
            logger: sessionLogger,
            maxRequestRetries: flags.maxRetries ?? 3,
            ...(instructions === undefined ? {} : { instructions }),
            ...(flags.maxSteps === undefined ? {} : { maxStepsPerTurn: flags.maxSteps }),
          });
        } catch (error) {
          await mcp.close();
          throw error;
        }
        return {
          agent,
          seams,
          tools,
          notices: [...notices, ...mcp.failures.map((failure) => failure.message)],
          close: () => mcp.close(),
        };
      },
    });
    const stopSignals = io.onSignal(() => {
      void server.close();
    });
    try {
      await server.closed;
    } finally {
      stopSignals();
    }
    return 0;
  },
};
