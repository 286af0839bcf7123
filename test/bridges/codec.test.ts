import { describe, expect, it } from 'vitest';
import {
  compileMatcher,
  decodeHookOutput,
  type HookRun,
  type HookVerdict,
  MAX_CONTEXT_CHARS,
  mergeVerdicts,
  runHook,
} from '../../bridges/index.js';

const run = (exitCode: number | null, stdout = '', stderr = ''): HookRun => ({
  exitCode,
  stdout,
  stderr,
  outcome: 'exited',
  durationMs: 1,
  notes: [],
});

const verdict = (fields: Partial<HookVerdict>): HookVerdict => ({ kind: 'none', notes: [], ...fields });

describe('matchers', () => {
  it('absent, empty and * match everything; exact lists split on | and , (Claude) or | (Codex); the rest is a RegExp', () => {
    for (const pattern of [undefined, '', '*'])
      expect(compileMatcher(pattern, 'claude-code')('Anything')).toBe(true);
    const claude = compileMatcher('Edit, Write|mcp__fs', 'claude-code');
    expect(['Edit', 'Write', 'mcp__fs', 'EditFile'].map(claude)).toEqual([true, true, true, false]);
    expect(compileMatcher('code-reviewer', 'claude-code')('code-reviewer-2')).toBe(false);
    expect(compileMatcher('Notebook.*', 'claude-code')('NotebookEdit')).toBe(true);
    expect(compileMatcher('Bash', 'codex')('BashOutput')).toBe(false);
    // `-` is not exact-list material for Codex, so the pattern is an unanchored RegExp.
    expect(compileMatcher('code-review', 'codex')('my-code-reviewer')).toBe(true);
    expect(() => compileMatcher('[', 'codex')).toThrow(/is not a valid regular expression/);
  });
});

describe('decoding one hook', () => {
  it('Claude reads JSON on every exit code and prefers its reason on exit 2', () => {
    const json = '{"decision":"block","reason":"from json"}';
    expect(decodeHookOutput(run(2, json, 'from stderr'), 'PreToolUse', 'claude-code')).toMatchObject({
      kind: 'block',
      reason: 'from json',
    });
    expect(decodeHookOutput(run(1, json), 'PostToolUse', 'claude-code')).toMatchObject({
      kind: 'block',
      reason: 'from json',
    });
    expect(decodeHookOutput(run(2, '', '  '), 'Stop', 'claude-code')).toMatchObject({
      kind: 'block',
      reason: 'blocked by Stop hook',
    });
  });

  it('Codex parses JSON on exit 0 only and fails open on exit 2 with empty stderr', () => {
    expect(
      decodeHookOutput(run(1, '{"decision":"block","reason":"x"}'), 'PostToolUse', 'codex'),
    ).toMatchObject({
      kind: 'none',
      failure: 'error',
    });
    expect(decodeHookOutput(run(2, '{"decision":"block","reason":"x"}'), 'Stop', 'codex')).toMatchObject({
      kind: 'none',
      failure: 'error',
    });
    expect(
      decodeHookOutput(
        run(0, '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}'),
        'PreToolUse',
        'codex',
      ),
    ).toMatchObject({
      kind: 'none',
      notes: ['permissionDecision "ask" is not supported by Codex hooks (ignored)'],
    });
  });

  it('plain stdout is context on SessionStart and UserPromptSubmit only; broken JSON is a non-blocking error', () => {
    expect(decodeHookOutput(run(0, 'note\n'), 'UserPromptSubmit', 'claude-code').context).toBe('note');
    expect(decodeHookOutput(run(0, 'note'), 'PreToolUse', 'claude-code').context).toBeUndefined();
    expect(decodeHookOutput(run(0, '{ nope }'), 'UserPromptSubmit', 'claude-code')).toMatchObject({
      failure: 'error',
      notes: ['stdout looks like JSON but is not a valid JSON object', 'exited with code 0'],
    });
    const long = decodeHookOutput(run(0, 'x'.repeat(MAX_CONTEXT_CHARS + 5)), 'SessionStart', 'claude-code');
    expect(long.context).toBe(
      `${'x'.repeat(MAX_CONTEXT_CHARS)}\n[truncated: 5 more characters from the hook were dropped]`,
    );
  });

  it('continue:false, defer, updatedInput and systemMessage are decoded and noted', () => {
    const out = JSON.stringify({
      continue: false,
      stopReason: 'halt',
      systemMessage: 'fyi',
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'defer',
        updatedInput: { a: 1 },
      },
    });
    expect(decodeHookOutput(run(0, out), 'PreToolUse', 'claude-code')).toEqual({
      kind: 'ask',
      stop: { reason: 'halt' },
      systemMessage: 'fyi',
      updatedInput: { a: 1 },
      notes: ['permissionDecision "defer" treated as "ask"'],
    });
  });

  it('updatedInput: Claude takes it with any decision, Codex only next to "allow"; other events ignore it with a note', () => {
    const answer = (permissionDecision?: string, hookEventName = 'PreToolUse') =>
      JSON.stringify({
        hookSpecificOutput: {
          hookEventName,
          ...(permissionDecision === undefined ? {} : { permissionDecision, permissionDecisionReason: 'r' }),
          updatedInput: { command: 'ls -a' },
        },
      });
    expect(decodeHookOutput(run(0, answer('deny')), 'PreToolUse', 'claude-code')).toMatchObject({
      kind: 'block',
      updatedInput: { command: 'ls -a' },
    });
    expect(decodeHookOutput(run(0, answer()), 'PreToolUse', 'claude-code')).toMatchObject({
      kind: 'none',
      updatedInput: { command: 'ls -a' },
    });
    expect(decodeHookOutput(run(0, answer('allow')), 'PreToolUse', 'codex')).toMatchObject({
      kind: 'allow',
      updatedInput: { command: 'ls -a' },
    });
    const codexWithout = decodeHookOutput(run(0, answer()), 'PreToolUse', 'codex');
    expect(codexWithout).not.toHaveProperty('updatedInput');
    expect(codexWithout.notes).toEqual([
      'updatedInput without permissionDecision "allow" is ignored (Codex)',
    ]);
    const post = decodeHookOutput(run(0, answer(undefined, 'PostToolUse')), 'PostToolUse', 'claude-code');
    expect(post).not.toHaveProperty('updatedInput');
    expect(post.notes).toEqual(['updatedInput is not supported on PostToolUse (ignored)']);
  });
});

describe('merging', () => {
  it('the most restrictive kind wins, its reasons join in config order, the first continue:false wins', () => {
    const merged = mergeVerdicts([
      verdict({ kind: 'allow', reason: 'fine', context: 'a' }),
      verdict({ kind: 'block', reason: 'first', stop: { reason: 'one' } }),
      verdict({ kind: 'ask', reason: 'maybe', context: 'b' }),
      verdict({ kind: 'block', reason: 'second', stop: { reason: 'two' } }),
      verdict({ failure: 'timeout' }),
    ]);
    expect(merged).toEqual({
      kind: 'block',
      reason: 'first\n\nsecond',
      contexts: ['a', 'b'],
      stop: { reason: 'one' },
      systemMessages: [],
    });
  });
});

describe('the runner', () => {
  it('caps stdout, tolerates a hook that never reads stdin, and reports exit codes', async () => {
    const result = await runHook({
      command: 'head -c 5000 /dev/zero | tr "\\0" a; exit 3',
      cwd: process.cwd(),
      env: process.env,
      stdin: 'x'.repeat(1 << 20),
      timeoutMs: 5000,
      maxOutputBytes: 1000,
    });
    expect(result).toMatchObject({
      exitCode: 3,
      outcome: 'exited',
      notes: ['stdout capped at 1000 bytes; 4000 bytes discarded'],
    });
    expect(result.stdout).toBe('a'.repeat(1000));
  });
});
