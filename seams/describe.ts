import type { z } from 'zod';
import { describeValue } from '../kernel/index.js';

type Issue = z.core.$ZodIssue;
type Path = readonly PropertyKey[];

/** Turns zod issues into one line: `Invalid input: expected "stop" at "action", received "go"`. */
export function formatIssues(issues: readonly Issue[], input: unknown): string {
  const [first] = issues;
  if (first === undefined) return 'Invalid input';
  const text = formatIssue(first, [], input);
  const more = issues.length - 1;
  return more > 0 ? `${text} (and ${more} more issue${more === 1 ? '' : 's'})` : text;
}

function formatIssue(issue: Issue, base: Path, input: unknown): string {
  const path = [...base, ...issue.path];
  if (issue.code === 'invalid_union') {
    const options = (issue as { options?: readonly unknown[] }).options;
    // A discriminated union reports the discriminator's allowed values directly.
    if (options) return expectation(`one of ${options.map(describeValue).join('|')}`, path, input);
    return formatUnion(issue.errors, path, input);
  }
  if (issue.code === 'invalid_type') return expectation(issue.expected, path, input);
  if (issue.code === 'invalid_value') {
    const values = issue.values.map(describeValue);
    return expectation(values.length === 1 ? values.join('') : `one of ${values.join('|')}`, path, input);
  }
  return path.length > 0 ? `${issue.message} at "${formatPath(path)}"` : issue.message;
}

// A plain union lists one issue array per branch; report the branch that came closest to matching.
function formatUnion(branches: readonly (readonly Issue[])[], path: Path, input: unknown): string {
  const singles = branches.map((b) => (b.length === 1 ? b[0] : undefined));
  const samePath = singles.every(
    (i) =>
      i !== undefined && (i.code === 'invalid_type' || i.code === 'invalid_value') && i.path.length === 0,
  );
  if (samePath && singles.length > 0) {
    const expected = singles.map((i) =>
      i?.code === 'invalid_type'
        ? i.expected
        : i?.code === 'invalid_value'
          ? describeValue(i.values[0])
          : '?',
    );
    return expectation(`one of ${expected.join('|')}`, path, input);
  }
  const literalMismatch = (b: readonly Issue[]): boolean => b.some((i) => i.code === 'invalid_value');
  const tagged = branches.filter((b) => b.length > 0 && !literalMismatch(b));
  const pool = tagged.length > 0 ? tagged : branches;
  const closest = [...pool].sort((a, b) => a.length - b.length)[0];
  const discriminators = branches.flatMap((b) => b.filter((i) => i.code === 'invalid_value'));
  if (tagged.length === 0 && discriminators.length === branches.length && discriminators[0]) {
    // Every branch failed on its tag literal: the tag itself is what is wrong.
    const tagPath = discriminators[0].path;
    const values = discriminators
      .flatMap((i) => (i.code === 'invalid_value' ? i.values : []))
      .map(describeValue);
    return expectation(`one of ${values.join('|')}`, [...path, ...tagPath], input);
  }
  const first = closest?.[0];
  return first ? formatIssue(first, path, input) : expectation('a matching variant', path, input);
}

function expectation(expected: string, path: Path, input: unknown): string {
  const where = path.length > 0 ? ` at "${formatPath(path)}"` : '';
  return `Invalid input: expected ${expected}${where}, received ${describeValue(readPath(input, path))}`;
}

function formatPath(path: Path): string {
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
}

function readPath(input: unknown, path: Path): unknown {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
