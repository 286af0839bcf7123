import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { JsonValue } from '../../kernel/index.js';

/**
 * The `argsHash` of an approval request: SHA-256 (hex) of the RFC 8785 canonical JSON of a call's
 * effective input, so an answer binds to the exact input it approved.
 * @param value the sealed effective input (plain JSON)
 * @example
 * hashArguments({ b: 1, a: 'x' }) === hashArguments({ a: 'x', b: 1 }); // true
 */
export function hashArguments(value: JsonValue): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('Expected a JSON value to hash, got undefined');
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
