import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { type Command, Option } from 'commander';
import type { ApprovalChannel, McpStdioServer, SeamLogger, SessionStore } from '../index.js';
import {
  checkInvariants,
  createAgent,
  createDemoTools,
  createInspectionLog,
  createJsonlStore,
  createSeams,
  createToolRegistry,
  formatCapabilitySummary,
  formatViolation,
  type InspectionLog,
  killOwnedProcesses,
  memoryStore,
  openJsonlStore,
  plugins,
  SessionLoadError,
  SessionLockedError,
  SessionStoreError,
} from '../index.js';
import { type ApproveMode, fixedApproval, terminalApproval } from './approvalPrompt.js';
import { type CliCommand, type CliIO, repeatable, UsageError } from './command.js';
import { loadMcpServersFlag, MCP_CONFIG_HELP, registerMcpTools } from './mcpFlag.js';
import { runPromptLoop } from './promptLoop.js';
import { deferredApproval, durationFlag, resumeBlockedByApprovals, suspendedExit } from './runApprovals.js';
import { type AgentFlags, addAgentFlags, loadBridges, resolveModel } from './runFlags.js';
import { Screen, wantsColour } from './screen.js';
import { resolveSessionSetup } from './sessionHeader.js';
import { Interrupts, SIGNAL_EXIT } from './signals.js';
import { startTelemetry } from './telemetry.js';
import { Transcript } from './transcript.js';
import { trustedProjectFiles } from './trust.js';
import { addTurnFlags, composeInstructions, resolveFlagInstructions, type TurnFlags } from './turnFlags.js';
import { packageVersion } from './version.js';

interface RunFlags extends AgentFlags, TurnFlags {
  prompt?: string[];
  session?: string;
  resume?: boolean;
  breakLock?: boolean;
  json?: boolean;
  color: boolean;
  approve?: ApproveMode | 'defer';
  approveExpiresIn?: number;
  inspectLog?: string;
  mcpConfig?: string;
}

const EXAMPLES = `
Examples:
  seamchart run "list the files" --model scripted:script.json --tools demo
  seamchart run --prompt first --prompt second --session s.jsonl
  seamchart run "and now?" --session s.jsonl --resume
  seamchart run "hi" --model openai --base-url http://127.0.0.1:8080/v1 --model-name local

A script file is a JSON list of model steps, e.g.
  [{ "text": "calling", "toolCalls": [{ "id": "c1", "name": "Bash", "arguments": { "command": "ls" } }] },
   { "text": "done" }]

  seamchart run "deploy it" --session s.jsonl --approve defer   (then: seamchart approvals s.jsonl)

Exit codes: 0 every turn completed, 1 a turn ended otherwise or the session file could not be written,
2 bad input, 3 a turn is suspended on deferred approvals, 130 Ctrl-C, 143 SIGTERM.
`;

/** A file the run will create: its directory must exist (nothing is created on the way). */
async function requireParentDir(flag: string, file: string): Promise<void> {
  const dir = path.dirname(path.resolve(file));
  const stats = await stat(dir).catch(() => undefined);
  if (!stats?.isDirectory()) throw new UsageError(`${flag} ${file}: no such directory ${dir}`);
}

/** The session store the flags name; CLI words in every error (`--resume`, not library calls). */
async function openStore(flags: RunFlags, cwd: string): Promise<SessionStore> {
  const file = flags.session;
  if (file === undefined) {
    if (flags.resume) throw new UsageError('--resume needs --session FILE');
    return memoryStore();
  }
  try {
    if (flags.breakLock && !flags.resume) throw new UsageError('--break-lock goes with --resume');
    if (flags.resume) return await openJsonlStore(file, { breakLock: flags.breakLock === true });
    await requireParentDir('--session', file);
    return await createJsonlStore(file, { cwd, tools: flags.tools });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if (error instanceof SessionStoreError && error.code === 'FILE_EXISTS')
      throw new UsageError(`session file ${file} already exists; add --resume to continue it`);
    if (error instanceof SessionLoadError && (error.code === 'READ_FAILED' || error.code === 'NOT_FOUND'))
      throw new UsageError(`--resume: cannot read session file ${file} (start it without --resume)`);
    if (error instanceof SessionLockedError) {
      const { pid, host, since } = error.holder;
      throw new UsageError(
        error.holderState === 'alive'
          ? `session file ${file} is in use by process ${pid} on this host (${host}, since ${since}); wait for that run to end or stop it`
          : `session file ${file} is in use by process ${pid} on ${host} (since ${since}); if that run is gone, add --break-lock`,
      );
    }
    if (error instanceof SessionLoadError || error instanceof SessionStoreError)
      throw new UsageError(error.message);
    throw error;
  }
}

/** The inspection file; its directory must exist. */
async function openInspection(file: string | undefined): Promise<InspectionLog | undefined> {
  if (file === undefined) return undefined;
  await requireParentDir('--inspect-log', file);
  try {
    return createInspectionLog(file);
  } catch (error) {
    throw new UsageError(`--inspect-log ${file}: ${(error as Error).message}`);
  }
}

/** Contained failures and warnings: in the transcript (a systemMessage is shown there already), else on stderr. */
function runLogger(io: CliIO, transcript: Transcript | undefined): SeamLogger {
  const text = (message: string, details?: Record<string, unknown>): string => {
    const error = details?.error;
    return error instanceof Error ? `${message}: ${error.message}` : message;
  };
  return {
    error(message, details) {
      if (transcript) transcript.error('seamchart', text(message, details));
      else io.stderr.write(`seamchart: ${text(message, details)}\n`);
    },
    warn(message, details) {
      if (!transcript) io.stderr.write(`seamchart: ${text(message, details)}\n`);
      else if (!/ systemMessage: /.test(message)) transcript.note(text(message, details));
    },
  };
}

/** `--approve`'s default: ask when a person can answer (stdin and stderr are terminals), else no. */
function approveMode(flags: RunFlags, io: CliIO): ApproveMode {
  if (flags.approve !== undefined && flags.approve !== 'defer') return flags.approve;
  return io.stdin.isTTY === true && io.stderr.isTTY === true ? 'ask' : 'no';
}

/**
 * `seamchart run`: one agent, one turn per prompt, shown as a transcript (or JSONL with `--json`).
 * Exit 0 when every turn ended completed or max-tokens, 1 otherwise, 130/143 after a signal.
 */
export const runCommand: CliCommand = {
  name: 'run',
  configure(command: Command) {
    command
      .description('run one turn per prompt and show it as it happens')
      .argument('[prompt...]', 'the words of one prompt')
      .option('--prompt <text>', 'a prompt; repeat to queue several turns', repeatable);
    addTurnFlags(addAgentFlags(command))
      .addOption(
        new Option(
          '--approve <mode>',
          'answer tool approvals: ask at the terminal, yes or no to every ask, or defer every ask (answered later with seamchart approve; exit 3) (default ask on a terminal, else no)',
        ).choices(['ask', 'yes', 'no', 'defer']),
      )
      .option(
        '--approve-expires-in <duration>',
        'with --approve defer: a request not answered within this time (90s, 30m, 2h, 1d) is denied as expired',
        durationFlag,
      )
      .option('--session <file>', 'write the session log to this JSONL file (its directory must exist)')
      .option('--resume', 'continue the session in --session FILE (a crashed file is repaired first)')
      .option(
        '--break-lock',
        'with --resume: take over the session lock of a writer on another host (never one running here)',
      )
      .option('--json', 'print the log events as JSONL instead of the transcript (for scripts)')
      .option('--no-color', 'no colour (also when NO_COLOR is set or output is not a terminal)')
      .option('--inspect-log <file>', 'write XState inspection events as JSONL (replayable in a viewer)')
      .option('--mcp-config <file>', MCP_CONFIG_HELP)
      .addHelpText('after', EXAMPLES);
  },
  async run(command: Command, io: CliIO) {
    const flags = command.opts<RunFlags>();
    if (flags.approve === 'defer' && flags.session === undefined)
      throw new UsageError(
        '--approve defer needs --session FILE (the answer comes later, from another process, through that file)',
      );
    if (flags.approveExpiresIn !== undefined && flags.approve !== 'defer')
      throw new UsageError('--approve-expires-in goes with --approve defer');
    const prompts = await readPrompts(command.args, flags, io);
    const setup = await resolveSessionSetup(command, flags);
    const cwd = setup.cwd;
    if (setup.tools !== 'demo' && setup.tools !== 'none')
      throw new UsageError(
        `--resume: the session's tools "${setup.tools}" are not demo or none; give --tools`,
      );
    flags.tools = setup.tools;
    for (const note of setup.notes) io.stderr.write(`seamchart: ${note}\n`);
    const instructions = await composeInstructions(await resolveFlagInstructions(flags), cwd, flags);
    const model = await resolveModel(flags, io.env);
    const project = await trustedProjectFiles({
      cwd,
      flags,
      io,
      canAsk: io.stdin.isTTY === true && io.stderr.isTTY === true,
      prefix: 'seamchart',
    });
    if (project === 'interrupted') return SIGNAL_EXIT.SIGINT;
    const bridges = await loadBridges(flags, flags.session, undefined, project);
    const mcpServers = await loadMcpServersFlag(flags.mcpConfig);
    if (flags.resume && flags.session === undefined) throw new UsageError('--resume needs --session FILE');
    // Opened last, inspection before the store: a bad flag or path leaves nothing written.
    const inspection = await openInspection(flags.inspectLog);
    let store: SessionStore;
    try {
      store = await openStore(flags, cwd);
    } catch (error) {
      inspection?.close();
      if (flags.inspectLog !== undefined) await rm(flags.inspectLog, { force: true });
      throw error;
    }
    // A turn still waiting for answers: say so and run nothing (nothing is written either).
    if (flags.resume && resumeBlockedByApprovals(store, flags.session as string, prompts, io)) {
      await store.close();
      inspection?.close();
      if (flags.inspectLog !== undefined) await rm(flags.inspectLog, { force: true });
      return 3;
    }
    return runSession({
      flags,
      io,
      cwd,
      model,
      bridges,
      store,
      inspection,
      prompts,
      mcpServers,
      instructions,
    });
  },
};

async function runSession(run: {
  flags: RunFlags;
  io: CliIO;
  cwd: string;
  model: Awaited<ReturnType<typeof resolveModel>>;
  bridges: Awaited<ReturnType<typeof loadBridges>>;
  store: SessionStore;
  inspection: InspectionLog | undefined;
  /** The prompts to run, or `loop`: read them at the terminal, one turn per line. */
  prompts: string[] | 'loop';
  mcpServers: McpStdioServer[];
  instructions: string | undefined;
}): Promise<number> {
  const { flags, io, store, inspection } = run;
  const json = flags.json === true;
  const screen = new Screen(
    io.stdout,
    !json && io.stderr.isTTY === true ? io.stderr : undefined,
    wantsColour(io.stdout, io.env, flags.color === false),
  );
  const transcript = new Transcript(screen, { promptsEchoed: run.prompts === 'loop' });
  reportResume(io, store, flags.session);

  const seams = createSeams({ logger: runLogger(io, json ? undefined : transcript) });
  const telemetry = await startTelemetry(
    io,
    flags.model === 'openai' ? (flags.modelName ?? 'gpt-4o-mini') : flags.model,
  );
  if (telemetry) seams.use(telemetry.plugin);
  for (const bridge of run.bridges) {
    if (!json) transcript.note(formatCapabilitySummary(bridge.capabilities()));
    seams.use(bridge);
  }
  const maxRetries = flags.maxRetries ?? 3;
  seams.use(
    plugins.requestRetry({
      maxRetries,
      onWait: ({ error, delayMs, retry }) =>
        screen.setStatus(
          `… ${error.code ?? 'request failed'}: retrying in ${(delayMs / 1000).toFixed(1)}s (retry ${retry} of ${maxRetries})`,
        ),
    }),
  );
  const tools = createToolRegistry();
  if (flags.tools === 'demo') for (const tool of createDemoTools({ root: run.cwd })) tools.register(tool);
  const mcp = await registerMcpTools(run.mcpServers, tools, {
    cwd: run.cwd,
    version: packageVersion(),
    report: (message) => {
      if (json) io.stderr.write(`seamchart: ${message}\n`);
      else transcript.error('mcp', message);
    },
  });
  if (json) {
    seams.on('session/event', ({ event }) => {
      io.stdout.write(`${JSON.stringify(event)}\n`);
    });
    // Not a log event (a failed SessionStart hook has no turn): a line of the stream, and one on stderr.
    seams.on('agent/error', ({ agentId, origin, error }) => {
      io.stdout.write(`${JSON.stringify({ type: 'agent/error', agentId, origin, error })}\n`);
      io.stderr.write(`seamchart: ${origin}: ${error.message}\n`);
    });
  } else {
    seams.on('session/event', ({ event }) => transcript.event(event));
    seams.on('seam/decided', (decision) => transcript.decided(decision));
    seams.on('model/delta', ({ delta }) => transcript.delta(delta));
    seams.on('agent/error', ({ origin, error }) => transcript.error(origin, error.message));
  }

  let agent: ReturnType<typeof createAgent> | undefined;
  const interrupts = new Interrupts(io, {
    cancel: (signal) => {
      if (!json)
        transcript.note(
          `${signal === 'SIGINT' ? 'Ctrl-C' : signal}: cancelling the turn (Ctrl-C again to quit at once)`,
        );
      // A suspended turn waits for its answers on disk: a signal disposes it, never cancels it (approvals.md).
      if (agent?.status !== 'suspended') agent?.cancel({ kind: 'user' });
    },
    quit: (signal) => {
      screen.clearStatus();
      // The log is appended line by line: the file loads as it is (repaired on the next --resume).
      void killOwnedProcesses().finally(() => io.exit(SIGNAL_EXIT[signal]));
    },
  });
  const mode = approveMode(flags, io);
  const onAnswer: Parameters<typeof fixedApproval>[1] = (request, answer) => {
    const by = mode === 'ask' ? 'you' : `--approve ${mode}`;
    transcript.decided({ seam: 'approval', decidedBy: by, decision: answer, callId: request.callId });
  };
  const approval: ApprovalChannel =
    flags.approve === 'defer'
      ? deferredApproval(flags.approveExpiresIn)
      : mode === 'ask'
        ? terminalApproval({
            screen,
            input: io.stdin,
            output: io.stderr as NodeJS.WritableStream,
            onInterrupt: () => interrupts.interrupt('SIGINT'),
            onAnswer,
          })
        : fixedApproval(mode, onAnswer);

  agent = createAgent({
    seams,
    tools,
    model: run.model,
    store,
    cwd: run.cwd,
    approval,
    maxRequestRetries: maxRetries,
    ...(run.instructions === undefined ? {} : { instructions: run.instructions }),
    ...(flags.maxSteps === undefined ? {} : { maxStepsPerTurn: flags.maxSteps }),
    ...(inspection ? { inspect: inspection.inspect } : {}),
  });
  const firstNewSeq = agent.log.events.length;
  // The run holds the event loop open until its turns end: a model step or prompt that waits on nothing
  // (a hanging request, stdin closed) waits for Ctrl-C instead of letting node exit 0 with a turn open.
  const keepAlive = setInterval(() => {}, 2 ** 31 - 1);
  try {
    try {
      const running = agent;
      if (run.prompts === 'loop')
        await runPromptLoop({
          agent: running,
          input: io.stdin,
          output: io.stdout,
          accept: (text) => acceptPrompt(running, text),
          afterTurn: () => interrupts.reset(),
        });
      else
        for (const prompt of run.prompts) {
          // A store that fails while a prompt is accepted refuses it (and every later one): the run ends failed.
          if (!acceptPrompt(agent, prompt)) break;
        }
      await agent.whenIdle();
    } finally {
      await agent.dispose();
      await mcp.close();
      await telemetry?.shutdown();
      inspection?.close();
      screen.clearStatus();
    }
    // The prompt loop ends when the person quits: its cancelled turns are not the process's failure.
    const loopQuit = run.prompts === 'loop' && interrupts.received === undefined;
    return closingCode(
      agent,
      store,
      io,
      flags.session,
      loopQuit ? agent.log.events.length : firstNewSeq,
      interrupts,
    );
  } finally {
    // Signals stay handled until the last process group is killed: a second Ctrl-C now still kills them.
    if (interrupts.received !== undefined) await killOwnedProcesses();
    interrupts.dispose();
    clearInterval(keepAlive);
  }
}

/** The run's exit code from its log: a failed store 1, a signal 130/143, else 0 only if every new turn completed. */
function closingCode(
  agent: ReturnType<typeof createAgent>,
  store: SessionStore,
  io: CliIO,
  session: string | undefined,
  firstNewSeq: number,
  interrupts: Interrupts,
): number {
  const events = agent.log.events;
  const failure = store.failure;
  // A failed store leaves its last turn open on purpose (the next --resume repairs it): not a violation.
  const violations = checkInvariants(events, { open: failure !== undefined });
  for (const violation of violations) io.stderr.write(`${formatViolation(violation)}\n`);
  if (failure !== undefined) {
    io.stderr.write(`${describeStoreFailure(failure, session)}\n`);
    return 1;
  }
  if (interrupts.received !== undefined) return SIGNAL_EXIT[interrupts.received];
  if (violations.length === 0 && session !== undefined && suspendedExit(events, session, io)) return 3;
  const reasons = events
    .slice(firstNewSeq)
    .filter((e) => e.type === 'turn/end')
    .map((e) => (e.data as { reason: { kind: string } }).reason.kind);
  const ok =
    violations.length === 0 && reasons.every((kind) => kind === 'completed' || kind === 'max-tokens');
  return ok ? 0 : 1;
}

/**
 * What opening the session did, before the run starts: "repaired" (naming the backup) only when the file was
 * changed; a lock taken over and items re-queued from the log are said as such.
 */
function reportResume(io: CliIO, store: SessionStore, session: string | undefined): void {
  const { repairs = [], backup } = store as { repairs?: readonly string[]; backup?: string };
  const say = (line: string): void => {
    io.stderr.write(`${line}\n`);
  };
  // The store lists the lock's lines first and the re-queued items last, each with its prefix.
  const lock = repairs.filter((line) => line.startsWith('lock: '));
  const requeued = repairs.filter((line) => line.startsWith('inbox: '));
  const fileRepairs = repairs.filter((line) => !lock.includes(line) && !requeued.includes(line));
  for (const line of lock) say(`seamchart: ${line.slice('lock: '.length)}`);
  if (backup !== undefined) {
    say(`seamchart: repaired ${session} before resuming (the original is kept as ${backup}):`);
    for (const line of fileRepairs) say(`  ${line}`);
  }
  if (requeued.length > 0) {
    say(`seamchart: ${requeued.length} message(s) accepted earlier and never run are re-queued:`);
    for (const line of requeued) say(`  ${line.slice('inbox: '.length)}`);
  }
}

/**
 * The prompts of a run: the words (one prompt; `-` reads it from stdin) and each `--prompt`; none
 * on a terminal opens the prompt loop.
 */
async function readPrompts(words: readonly string[], flags: RunFlags, io: CliIO): Promise<string[] | 'loop'> {
  let first: string | undefined;
  if (words.length === 1 && words[0] === '-') {
    let text = '';
    for await (const chunk of io.stdin) text += String(chunk);
    if (text.trim() === '') throw new UsageError('run -: standard input held no prompt');
    first = text.replace(/\n$/, '');
  } else if (words.length > 0) first = words.join(' ');
  const prompts = [...(first === undefined ? [] : [first]), ...(flags.prompt ?? [])];
  if (prompts.length > 0) return prompts;
  // A suspended session continues without a new prompt: its turn is the work.
  if (flags.resume && flags.session !== undefined && (await endsSuspended(flags.session))) return [];
  if (io.stdin.isTTY === true && io.stdout.isTTY === true && flags.json !== true) return 'loop';
  throw new UsageError('run needs a prompt (words, --prompt TEXT, or - to read it from stdin)');
}

/** Whether a session file's last turn is suspended (read without locking; an unreadable file is left to the open). */
async function endsSuspended(file: string): Promise<boolean> {
  const { readJsonlLog, findSuspension } = await import('../index.js');
  const loaded = await readJsonlLog(file).catch(() => undefined);
  return loaded !== undefined && findSuspension(loaded.events) !== undefined;
}

/** Follows up one prompt; `false` when the session store has failed (the agent then refuses everything). */
function acceptPrompt(agent: ReturnType<typeof createAgent>, prompt: string): boolean {
  try {
    agent.followup(prompt);
    return true;
  } catch (error) {
    if (error instanceof SessionStoreError) return false;
    throw error;
  }
}

/** The closing stderr line of a run whose session store failed: the cause, and what the file needs. */
function describeStoreFailure(failure: SessionStoreError, session: string | undefined): string {
  const cause = failure.cause instanceof Error ? ` (${failure.cause.message})` : '';
  const next =
    session === undefined
      ? ''
      : `; ${session} ends where the failed write began — \`seamchart run --resume --session ${session}\` repairs it`;
  return `seamchart: the session store failed, the run stopped: ${failure.message}${cause}${next}`;
}
