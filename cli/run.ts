import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatCapabilities, HookConfigError, loadHookPlugins } from '../bridges/index.js';
import { createAgent } from '../machines/createAgent.js';
import { createToolRegistry } from '../machines/standalone.js';
import { openAICompatible, parseScript, scriptedModel } from '../model/index.js';
import type { ModelAdapter } from '../model/types.js';
import { createSeams } from '../seams/index.js';
import {
  checkInvariants,
  createJsonlStore,
  formatViolation,
  memoryStore,
  openJsonlStore,
  SessionLoadError,
  SessionStoreError,
} from '../session/index.js';
import type { SessionStore } from '../session/types.js';
import { createDemoTools } from '../tools/index.js';
import { createInspectionLog } from '../visualize/index.js';
import { describeEvent } from './print.js';
import { UsageError } from './usage.js';

const runOptions = {
  prompt: { type: 'string', multiple: true },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  'model-name': { type: 'string' },
  'api-key-env': { type: 'string' },
  session: { type: 'string' },
  resume: { type: 'boolean', default: false },
  tools: { type: 'string', default: 'none' },
  cwd: { type: 'string' },
  json: { type: 'boolean', default: false },
  'claude-settings': { type: 'string', multiple: true },
  'claude-plugin': { type: 'string', multiple: true },
  'codex-hooks': { type: 'string', multiple: true },
  'inspect-log': { type: 'string' },
} as const;

/** Reads and validates a `scripted:<file>` model script. */
async function loadScriptedModel(file: string): Promise<ModelAdapter> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read model script ${file}: ${(error as Error).message}`);
  }
  try {
    return scriptedModel(parseScript(raw));
  } catch (error) {
    throw new UsageError(`model script ${file}: ${(error as Error).message}`);
  }
}

function resolveModel(values: {
  model?: string;
  'base-url'?: string;
  'model-name'?: string;
  'api-key-env'?: string;
}) {
  const spec = values.model ?? 'openai';
  if (spec.startsWith('scripted:')) return loadScriptedModel(spec.slice('scripted:'.length));
  if (spec !== 'openai') throw new UsageError(`--model expects scripted:<file> or openai, got "${spec}"`);
  const keyEnv = values['api-key-env'] ?? 'OPENAI_API_KEY';
  const apiKey = process.env[keyEnv];
  if (!apiKey) throw new UsageError(`--model openai needs an API key in $${keyEnv}`);
  return openAICompatible({
    baseURL: values['base-url'] ?? 'https://api.openai.com/v1',
    apiKey,
    model: values['model-name'] ?? 'gpt-4o-mini',
  });
}

async function openStore(file: string | undefined, resume: boolean): Promise<SessionStore> {
  if (file === undefined) {
    if (resume) throw new UsageError('--resume needs --session FILE');
    return memoryStore();
  }
  try {
    return resume ? await openJsonlStore(file) : await createJsonlStore(file);
  } catch (error) {
    if (error instanceof SessionLoadError || error instanceof SessionStoreError)
      throw new UsageError(error.message);
    throw error;
  }
}

/** On a terminal, says what the run is waiting for (the model, a hook) on one rewritten stderr line. */
function showProgress(seams: ReturnType<typeof createSeams>): void {
  const say = (text: string): void => {
    process.stderr.write(`\r\x1b[2K${text}`);
  };
  seams.on('session/event', ({ event }) => {
    if (event.type === 'step/start') say('… waiting for the model');
    else if (event.type === 'hook/invoked')
      say(`… running hook ${String((event.data as { event?: string }).event)}`);
    else if (event.type === 'tool/call')
      say(`… running tool ${String((event.data as { name?: string }).name)}`);
    else say('');
  });
}

/** Loads the hook bridges; a malformed config is bad input (exit 2). */
async function loadBridges(
  files: { claudeSettings: string[]; codexHooks: string[]; claudePlugins: string[] },
  transcriptPath: string | undefined,
) {
  try {
    return await loadHookPlugins(
      files,
      transcriptPath === undefined ? {} : { transcriptPath: path.resolve(transcriptPath) },
    );
  } catch (error) {
    if (error instanceof HookConfigError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * `seamchart run`: one agent, one turn per prompt.
 * @returns 0 when every turn ended completed or max-tokens, 1 otherwise
 */
export async function runRunCommand(argv: string[], write: (line: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: runOptions,
    allowPositionals: true,
    strict: true,
  });
  const prompts = [...(positionals.length > 0 ? [positionals.join(' ')] : []), ...(values.prompt ?? [])];
  if (prompts.length === 0) throw new UsageError('seamchart run needs a prompt (words or --prompt TEXT)');
  if (values.tools !== 'demo' && values.tools !== 'none') {
    throw new UsageError(`--tools expects demo or none, got "${values.tools}"`);
  }
  const cwd = path.resolve(values.cwd ?? process.cwd());
  const model = await resolveModel(values);
  const bridges = await loadBridges(
    {
      claudeSettings: values['claude-settings'] ?? [],
      codexHooks: values['codex-hooks'] ?? [],
      claudePlugins: values['claude-plugin'] ?? [],
    },
    values.session,
  );
  // Opened last: a bad flag or config must leave nothing written.
  const store = await openStore(values.session, values.resume);
  const inspection =
    values['inspect-log'] === undefined ? undefined : createInspectionLog(values['inspect-log']);

  const seams = createSeams();
  for (const bridge of bridges) {
    if (!values.json) write(formatCapabilities(bridge.capabilities()));
    seams.use(bridge);
  }
  const tools = createToolRegistry();
  if (values.tools === 'demo') for (const tool of createDemoTools({ root: cwd })) tools.register(tool);
  seams.on('session/event', ({ event }) => write(values.json ? JSON.stringify(event) : describeEvent(event)));
  if (!values.json) {
    seams.on('seam/decided', ({ seam, decidedBy, decision }) => {
      if (decidedBy !== 'default')
        write(`       ${seam} decided by ${decidedBy}: ${JSON.stringify(decision)}`);
    });
  }
  // Failures outside a turn (a SessionStart hook that exits 127) are not log events: say them here.
  seams.on('agent/error', ({ error, origin }) => {
    process.stderr.write(`error (${origin}): ${error.message}\n`);
  });
  if (process.stderr.isTTY && !values.json) showProgress(seams);
  const agent = createAgent({
    seams,
    tools,
    model,
    store,
    cwd,
    ...(inspection ? { inspect: inspection.inspect } : {}),
  });
  const firstNewSeq = agent.log.events.length;
  try {
    for (const prompt of prompts) agent.followup(prompt);
    await agent.whenIdle();
  } finally {
    await agent.dispose();
    inspection?.close();
  }

  const events = agent.log.events;
  const violations = checkInvariants(events);
  for (const violation of violations) process.stderr.write(`${formatViolation(violation)}\n`);
  const reasons = events
    .slice(firstNewSeq)
    .filter((e) => e.type === 'turn/end')
    .map((e) => (e.data as { reason: { kind: string } }).reason.kind);
  const ok =
    violations.length === 0 && reasons.every((kind) => kind === 'completed' || kind === 'max-tokens');
  return ok ? 0 : 1;
}
