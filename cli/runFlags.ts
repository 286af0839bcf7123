import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { type Command, Option } from 'commander';
import type { ModelAdapter } from '../index.js';
import {
  type HookBridge,
  HookConfigError,
  loadHookPlugins,
  openAICompatible,
  type PermissionMode,
  parseScript,
  scriptedModel,
} from '../index.js';
import { repeatable, UsageError } from './command.js';
import type { ProjectHookFiles } from './trust.js';

/** The flags that build an agent (model, hooks, tools, directory), shared by `run` and `acp`. */
export interface AgentFlags {
  model: string;
  baseUrl?: string;
  modelName?: string;
  apiKeyEnv?: string;
  claudeSettings?: string[];
  claudePlugin?: string[];
  codexHooks?: string[];
  codexPlugin?: string[];
  tools: 'demo' | 'none';
  cwd?: string;
  /** Trust the working folder's own settings files (remembered, as a yes at the terminal is). */
  trust?: boolean;
}

/** Declares the agent-building flags on a command. */
export function addAgentFlags(command: Command): Command {
  return command
    .option(
      '--model <spec>',
      'scripted:<file> (a JSON list of model steps, no network) or openai (any OpenAI-compatible server)',
      'openai',
    )
    .option('--base-url <url>', 'the OpenAI-compatible server (default https://api.openai.com/v1)')
    .option('--model-name <name>', 'the model the server should run (default gpt-4o-mini)')
    .option(
      '--api-key-env <name>',
      'the environment variable holding the API key (default OPENAI_API_KEY; optional for a loopback --base-url)',
    )
    .option(
      '--claude-settings <file>',
      'a Claude Code settings.json whose hooks run (repeatable)',
      repeatable,
    )
    .option(
      '--claude-plugin <dir>',
      'a Claude Code plugin folder (.claude-plugin/plugin.json, hooks/hooks.json) whose hooks run (repeatable)',
      repeatable,
    )
    .option('--codex-hooks <file>', 'a Codex hooks.json whose hooks run (repeatable)', repeatable)
    .option(
      '--codex-plugin <dir>',
      'a Codex plugin folder (.codex-plugin/plugin.json, hooks/hooks.json) whose hooks run with PLUGIN_ROOT set (repeatable)',
      repeatable,
    )
    .addOption(
      new Option(
        '--tools <set>',
        'demo: Bash, Read, Write, Edit, Glob, Grep confined to --cwd; none: no tools',
      )
        .choices(['demo', 'none'])
        .default('none'),
    )
    .option('--cwd <dir>', 'the working directory of the session and its tools (must exist)')
    .option(
      '--trust',
      'trust the working folder: load its .claude/settings.json, .claude/settings.local.json and .codex/hooks.json (remembered until they change)',
    );
}

/** The session's working directory: it must exist (a mistyped path is never created). */
export async function resolveCwd(flag: string | undefined): Promise<string> {
  const cwd = path.resolve(flag ?? process.cwd());
  const stats = await stat(cwd).catch(() => undefined);
  if (!stats?.isDirectory()) throw new UsageError(`--cwd ${flag}: no such directory (it is never created)`);
  return cwd;
}

/**
 * Reads a file a flag names; a missing or unreadable file is bad input naming the flag.
 * @param flag how the message names the flag (`--instructions-file x.md`)
 */
export async function readFlagFile(flag: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new UsageError(`${flag}: ${reason}`);
  }
}

/** Reads and validates a `scripted:<file>` model script. */
async function loadScriptedModel(file: string): Promise<ModelAdapter> {
  let raw: unknown;
  const text = await readFlagFile(`--model scripted:${file}`, file);
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--model scripted:${file}: ${(error as Error).message}`);
  }
  try {
    return scriptedModel(parseScript(raw));
  } catch (error) {
    throw new UsageError(`--model scripted:${file}: ${(error as Error).message}`);
  }
}

/** A server on this machine (a local model server) needs no API key. */
function isLoopback(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The model adapter the flags name; a bad spec, URL or missing key is bad input. */
export async function resolveModel(flags: AgentFlags, env: NodeJS.ProcessEnv): Promise<ModelAdapter> {
  const spec = flags.model;
  if (spec.startsWith('scripted:')) return loadScriptedModel(spec.slice('scripted:'.length));
  if (spec !== 'openai') throw new UsageError(`--model expects scripted:<file> or openai, got "${spec}"`);
  const baseURL = flags.baseUrl ?? 'https://api.openai.com/v1';
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    throw new UsageError(
      `--base-url expects an http(s) URL such as https://api.openai.com/v1, got "${baseURL}"`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--base-url expects an http(s) URL, got "${baseURL}"`);
  const keyEnv = flags.apiKeyEnv ?? 'OPENAI_API_KEY';
  const apiKey = env[keyEnv] ?? '';
  if (apiKey === '' && (flags.apiKeyEnv !== undefined || !isLoopback(url))) {
    throw new UsageError(
      `no API key: set $${keyEnv}${flags.apiKeyEnv === undefined ? ' or pass --api-key-env NAME' : ''} (a loopback --base-url needs none)`,
    );
  }
  try {
    return openAICompatible({ baseURL, apiKey, model: flags.modelName ?? 'gpt-4o-mini' });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Loads the hook bridges; a missing or malformed config is bad input. */
export async function loadBridges(
  flags: AgentFlags,
  transcriptPath: string | undefined,
  permissionMode?: (agentId: string | undefined) => PermissionMode,
  /** The trusted folder's own files (`trustedProjectFiles`), loaded before the flags' files. */
  project: ProjectHookFiles = { claudeSettings: [], codexHooks: [] },
): Promise<HookBridge[]> {
  try {
    return await loadHookPlugins(
      {
        claudeSettings: [...project.claudeSettings, ...(flags.claudeSettings ?? [])],
        codexHooks: [...project.codexHooks, ...(flags.codexHooks ?? [])],
        claudePlugins: flags.claudePlugin ?? [],
        codexPlugins: flags.codexPlugin ?? [],
      },
      {
        ...(transcriptPath === undefined ? {} : { transcriptPath: path.resolve(transcriptPath) }),
        ...(permissionMode === undefined ? {} : { permissionMode }),
      },
    );
  } catch (error) {
    if (error instanceof HookConfigError) throw new UsageError(error.message);
    throw error;
  }
}
