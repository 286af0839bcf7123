import type { Violation } from '../types.js';
import type { Entry } from './entries.js';
import { Invariant, violation } from './names.js';
import type { CheckedLog } from './segment.js';

/** 13 — a `tool/call` carries `original` and `rewrites` both or neither, and `rewrites` is never empty. */
export function checkRewriteRecord({ entries }: CheckedLog): Violation[] {
  return entries.flatMap(checkEntry);
}

function checkEntry(entry: Entry): Violation[] {
  if (entry.type !== 'tool/call') return [];
  const { callId, original, rewrites } = entry.data;
  if ((original === undefined) !== (rewrites === undefined)) {
    const has = original === undefined ? 'rewrites without original' : 'original without rewrites';
    return [
      violation(
        Invariant.rewriteRecord,
        'PARTIAL_REWRITE_RECORD',
        entry.seq,
        `tool/call ${callId} has ${has}`,
      ),
    ];
  }
  if (rewrites?.length === 0) {
    return [
      violation(
        Invariant.rewriteRecord,
        'EMPTY_REWRITES',
        entry.seq,
        `tool/call ${callId} has an empty rewrites list (leave both original and rewrites out when nothing rewrote it)`,
      ),
    ];
  }
  return [];
}
