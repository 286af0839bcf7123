import type { JsonValue } from '../kernel/index.js';
import { capContext, capReason } from '../seams/index.js';
import type { Dialect, HookEventName, HookRun, HookVerdict, VerdictKind } from './types.js';

// One cap for hooks and in-process plugins (seams/capText): a shell hook's text is cut the same way.
export { capContext, capReason, MAX_CONTEXT_CHARS } from '../seams/index.js';

/** The reason used when a hook blocks without saying why. */
export function defaultBlockReason(event: HookEventName): string {
  return `blocked by ${event} hook`;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type Draft = Mutable<Omit<HookVerdict, 'notes'>> & { notes: string[] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** Parses stdout as a JSON object when it looks like one; `'invalid'` when it looks like one and is not. */
function parseJsonObject(trimmed: string, dialect: Dialect): Record<string, unknown> | 'invalid' | undefined {
  // Claude: `{…}` only; Codex treats anything starting like JSON as JSON (and rejects what is not an object).
  const looksJson =
    dialect === 'claude-code'
      ? trimmed.startsWith('{') && trimmed.endsWith('}')
      : trimmed.startsWith('{') || trimmed.startsWith('[');
  if (!looksJson) return undefined;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return isRecord(parsed) ? parsed : 'invalid';
  } catch {
    return 'invalid';
  }
}

function setContext(draft: Draft, text: string): void {
  const capped = capContext(text);
  draft.context = capped.text;
  if (capped.note) draft.notes.push(capped.note);
}

function permission(draft: Draft, value: unknown, dialect: Dialect): void {
  const kinds: Record<string, VerdictKind> = { allow: 'allow', deny: 'block', ask: 'ask', defer: 'ask' };
  if (typeof value !== 'string' || !(value in kinds)) {
    draft.notes.push(`permissionDecision ${JSON.stringify(value)} is not allow|deny|ask|defer (ignored)`);
    return;
  }
  if (dialect === 'codex' && (value === 'ask' || value === 'defer')) {
    draft.notes.push(`permissionDecision "${value}" is not supported by Codex hooks (ignored)`);
    return;
  }
  if (value === 'defer') draft.notes.push('permissionDecision "defer" treated as "ask"');
  draft.kind = kinds[value] ?? 'none';
}

/** PermissionRequest `hookSpecificOutput.decision` (`sdk.d.ts`): allow, or deny with a message and maybe interrupt. */
function permissionRequestDecision(draft: Draft, raw: unknown): void {
  if (!isRecord(raw) || (raw.behavior !== 'allow' && raw.behavior !== 'deny')) {
    draft.notes.push(`decision ${JSON.stringify(raw)} is not { behavior: "allow" | "deny" } (ignored)`);
    return;
  }
  if (raw.behavior === 'allow') {
    draft.kind = 'allow';
  } else {
    draft.kind = 'block';
    const message = stringField(raw, 'message');
    if (message !== undefined) draft.reason = message;
    if (raw.interrupt === true) draft.interrupt = true;
  }
  if (raw.updatedInput !== undefined)
    draft.notes.push(
      'decision.updatedInput not honored: identity is sealed by approval (rewrite at PreToolUse)',
    );
  if (raw.updatedPermissions !== undefined)
    draft.notes.push('decision.updatedPermissions not honored: no permission rule is remembered');
}

/**
 * PreToolUse `updatedInput` (a whole replacement input, applied at `tools/prepare`): Claude takes it
 * with any permission decision, Codex only next to `permissionDecision: "allow"`, as each client does.
 */
function updatedInput(
  draft: Draft,
  raw: Record<string, unknown>,
  event: HookEventName,
  dialect: Dialect,
): void {
  if (event !== 'PreToolUse') {
    draft.notes.push(`updatedInput is not supported on ${event} (ignored)`);
    return;
  }
  if (dialect === 'codex' && raw.permissionDecision !== 'allow') {
    draft.notes.push('updatedInput without permissionDecision "allow" is ignored (Codex)');
    return;
  }
  draft.updatedInput = raw.updatedInput as JsonValue;
}

/** Applies the fields of `hookSpecificOutput` when it names this event. */
function applySpecific(draft: Draft, raw: unknown, event: HookEventName, dialect: Dialect): void {
  if (!isRecord(raw)) {
    draft.notes.push('hookSpecificOutput is not an object (ignored)');
    return;
  }
  if (raw.hookEventName !== event) {
    draft.notes.push(
      `hookSpecificOutput.hookEventName is ${JSON.stringify(raw.hookEventName)}, expected "${event}" (its fields were ignored)`,
    );
    return;
  }
  if (event === 'PermissionRequest' && raw.decision !== undefined)
    permissionRequestDecision(draft, raw.decision);
  if (event === 'PreToolUse' && raw.permissionDecision !== undefined) {
    permission(draft, raw.permissionDecision, dialect);
    const reason = stringField(raw, 'permissionDecisionReason');
    if (reason !== undefined) draft.reason = reason;
  }
  const context = stringField(raw, 'additionalContext');
  if (context !== undefined) {
    if (event === 'Stop') draft.notes.push('additionalContext on Stop is not supported (ignored)');
    else setContext(draft, context);
  }
  if (raw.updatedInput !== undefined) updatedInput(draft, raw, event, dialect);
  if (raw.updatedToolOutput !== undefined) {
    if (event === 'PostToolUse' && dialect === 'claude-code')
      draft.updatedToolOutput = raw.updatedToolOutput as JsonValue;
    else draft.notes.push(`updatedToolOutput is not supported on ${event} (ignored)`);
  }
}

/** Applies a hook's JSON answer (universal fields, legacy `decision`, `hookSpecificOutput`). */
function applyJson(
  draft: Draft,
  json: Record<string, unknown>,
  event: HookEventName,
  dialect: Dialect,
): void {
  if (json.continue === false) {
    const reason = stringField(json, 'stopReason');
    draft.stop = reason === undefined ? {} : { reason };
  }
  const systemMessage = stringField(json, 'systemMessage');
  if (systemMessage !== undefined) draft.systemMessage = systemMessage;
  if (json.decision === 'block') {
    draft.kind = 'block';
    const reason = stringField(json, 'reason');
    if (reason !== undefined) draft.reason = reason;
  } else if (json.decision === 'approve' && event === 'PreToolUse') {
    draft.kind = 'allow';
  } else if (json.decision !== undefined) {
    draft.notes.push(`decision ${JSON.stringify(json.decision)} is not understood on ${event} (ignored)`);
  }
  if (json.hookSpecificOutput !== undefined) applySpecific(draft, json.hookSpecificOutput, event, dialect);
}

function withCappedReason(draft: Draft): HookVerdict {
  if (draft.reason === undefined) return draft;
  const capped = capReason(draft.reason);
  draft.reason = capped.text;
  if (capped.note) draft.notes.push(capped.note);
  return draft;
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.slice(0, 200) ?? '';
}

function fail(draft: Draft, note: string): HookVerdict {
  return { kind: 'none', failure: 'error', notes: [...draft.notes, note] };
}

/**
 * Decodes one hook run into a verdict, by the dialect's rules: exit 2 blocks, JSON on stdout
 * decides (Claude: on every exit code; Codex: on exit 0 only), plain stdout on exit 0 is context
 * for SessionStart and UserPromptSubmit, anything else is a non-blocking error.
 * @param run what the process did
 * @param event the hook event it ran for (checked against `hookSpecificOutput.hookEventName`)
 * @param dialect `claude-code` or `codex`
 */
export function decodeHookOutput(run: HookRun, event: HookEventName, dialect: Dialect): HookVerdict {
  const draft: Draft = { kind: 'none', notes: [...run.notes] };
  if (run.outcome === 'timeout') return { kind: 'none', failure: 'timeout', notes: draft.notes };
  if (run.outcome === 'cancelled') return fail(draft, 'cancelled');
  if (run.outcome === 'spawn-error') return fail(draft, 'the hook could not be started');
  if (run.exitCode === null) return fail(draft, 'the hook was killed by a signal');

  const trimmed = run.stdout.trim();
  const jsonAllowed = dialect === 'claude-code' || run.exitCode === 0;
  const json = jsonAllowed ? parseJsonObject(trimmed, dialect) : undefined;
  if (json === 'invalid') draft.notes.push('stdout looks like JSON but is not a valid JSON object');
  else if (json !== undefined) applyJson(draft, json, event, dialect);

  if (run.exitCode === 2) {
    const stderr = run.stderr.trim();
    if (dialect === 'codex' && stderr === '')
      return fail(draft, 'exit 2 without a reason on stderr fails open');
    const jsonReason = draft.kind === 'block' ? draft.reason : undefined;
    draft.kind = 'block';
    draft.reason = jsonReason ?? (stderr || defaultBlockReason(event));
    return withCappedReason(draft);
  }
  if (json === 'invalid') return fail(draft, `exited with code ${run.exitCode}`);
  if (json !== undefined) {
    if (dialect === 'codex' && draft.kind === 'block' && draft.reason === undefined)
      return fail(draft, 'a Codex block needs a non-empty reason; fails open');
    return withCappedReason(draft);
  }
  if (run.exitCode !== 0) {
    const line = firstLine(run.stderr);
    return fail(draft, `non-blocking error: exited with code ${run.exitCode}${line ? `: ${line}` : ''}`);
  }
  if (trimmed !== '' && (event === 'SessionStart' || event === 'UserPromptSubmit'))
    setContext(draft, trimmed);
  return draft;
}
