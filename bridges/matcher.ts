import type { Dialect } from './types.js';

// Patterns made only of these characters are exact names (or lists of them), never regular expressions.
const EXACT_CHARS: Record<Dialect, RegExp> = {
  'claude-code': /^[A-Za-z0-9_\-|, ]+$/,
  codex: /^[A-Za-z0-9_|]+$/,
};

/** Thrown by `compileMatcher` for a pattern that is neither an exact list nor a valid RegExp. */
export class MatcherSyntaxError extends TypeError {
  readonly code = 'INVALID_MATCHER';
  constructor(
    readonly pattern: string,
    cause: unknown,
  ) {
    super(`is not a valid regular expression (${(cause as Error).message})`, { cause });
    this.name = 'MatcherSyntaxError';
  }
}

/**
 * Turns a hook matcher into a predicate over the subject (tool name or session source).
 * Absent, `""` and `"*"` match everything; an exact-looking pattern is a `|`/`,` separated list of
 * names; anything else is an unanchored JavaScript RegExp.
 * @param pattern the matcher as written in the config
 * @param dialect decides which characters make a pattern "exact"
 * @example
 * compileMatcher('Edit|Write', 'claude-code')('Write'); // true
 * compileMatcher('Bash', 'claude-code')('BashOutput'); // false
 */
export function compileMatcher(pattern: string | undefined, dialect: Dialect): (subject: string) => boolean {
  if (pattern === undefined || pattern === '' || pattern === '*') return () => true;
  if (EXACT_CHARS[dialect].test(pattern)) {
    const names = new Set(
      pattern
        .split(dialect === 'codex' ? '|' : /[|,]/)
        .map((name) => name.trim())
        .filter((name) => name !== ''),
    );
    return (subject) => names.has(subject);
  }
  let regexp: RegExp;
  try {
    regexp = new RegExp(pattern);
  } catch (error) {
    throw new MatcherSyntaxError(pattern, error);
  }
  return (subject) => regexp.test(subject);
}
