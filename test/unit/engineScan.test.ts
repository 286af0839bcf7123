import { describe, expect, it } from 'vitest';
import { librarySources, type ScanFinding, scanSources } from './support/sourceScan.js';

const describeFinding = ({ file, line, rule, text }: ScanFinding): string =>
  `${file}:${line} ${rule}: ${text}`;

// engine.md, contract 1: the engine runs the charts on XState's public API. These rules hold today; the
// module-state rule of E01 is scanned too, and listed in docs/architecture.md until it holds.
const publicApiRules = new Set([
  'an XState member whose name starts with _',
  "an assignment to a logic object's transition/provide",
]);
// engine.md, contract 2: every ordering rule is in a chart; nothing waits a microtask to imitate another path.
const timingRule = 'queueMicrotask / await undefined timing imitation';

describe('engine scan: the runtime uses XState through its public API', () => {
  it('no library source reads or declares an XState member whose name starts with _, or replaces a logic object’s transition/provide', () => {
    const findings = scanSources(librarySources(), new Set()).filter((finding) =>
      publicApiRules.has(finding.rule),
    );
    expect(findings.map(describeFinding)).toEqual([]);
  });

  it('no library source imitates a timing with queueMicrotask or await undefined', () => {
    const findings = scanSources(librarySources(), new Set()).filter(
      (finding) => finding.rule === timingRule,
    );
    expect(findings.map(describeFinding)).toEqual([]);
  });

  it('finds what it scans for (a scanner that sees nothing would pass anything)', () => {
    const findings = scanSources(['test/unit/support/scanFixture.ts.txt'], new Set());
    expect(findings.map(({ line, rule }) => `${line} ${rule}`)).toEqual([
      '3 an XState member whose name starts with _',
      '4 an XState member whose name starts with _',
      "5 an assignment to a logic object's transition/provide",
      '6 queueMicrotask / await undefined timing imitation',
      '8 module-level mutable state (let)',
      '9 module-level mutable state (a mutated collection)',
      '12 queueMicrotask / await undefined timing imitation',
    ]);
  });
});
