import fc from 'fast-check';
import { checkInvariants, formatViolation } from 'seamchart/testing';
import { describe, expect, it } from 'vitest';
import {
  classifyBatch,
  comparable,
  firstDifference,
  type PassThrough,
  passThrough,
  type Run,
  runScenario,
  type Scenario,
  scenario,
} from './passThrough.js';

// 200 runs in CI; SEAMCHART_PROPERTY_RUNS=N for a longer soak (see docs/testing.md).
const numRuns = Number(process.env.SEAMCHART_PROPERTY_RUNS ?? 200);

/** What the generated scenarios exercised, counted across all runs. */
const seen = {
  parallel: 0,
  exclusive: 0,
  mixed: 0,
  hangs: 0,
  throws: 0,
  cancels: 0,
  steers: 0,
  injects: 0,
  asyncPassThrough: 0,
};

function count(s: Scenario, extra: PassThrough, run: Run): void {
  for (const step of s.script) {
    if (!('toolCalls' in step)) continue;
    const kind = classifyBatch(step.toolCalls.map((call) => call.name));
    if (kind !== 'single') seen[kind]++;
  }
  if (
    s.script.some(
      (step) => 'hang' in step || ('toolCalls' in step && step.toolCalls.some((c) => c.name === 'hang')),
    )
  )
    seen.hangs++;
  if (Object.values(s.listeners).some((b) => b?.kind === 'throw')) seen.throws++;
  if (run.acts.some((done) => / cancel/.test(done) && !done.includes('threw'))) seen.cancels++;
  if (run.events.some((event) => event.type === 'steering/message')) seen.steers++;
  if (run.events.some((event) => event.type === 'context/message')) seen.injects++;
  if (extra.flavour === 'async') seen.asyncPassThrough++;
}

/** Everything wrong with one pair of runs, as lines (empty when the runs agree and check clean). */
function judge(without: Run, withExtra: Run): string[] {
  const problems: string[] = [];
  for (const [name, run] of [
    ['without', without],
    ['with', withExtra],
  ] as const) {
    if (run.hung) problems.push(`${name}: did not come to rest`);
    for (const violation of checkInvariants(run.events, { atRest: true }))
      problems.push(`${name}: ${formatViolation(violation)}`);
  }
  const difference = firstDifference(comparable(without.events), comparable(withExtra.events));
  if (difference !== undefined) {
    problems.push(
      `logs differ first at index ${difference.index}:\n  without: ${JSON.stringify(difference.without)}\n  with:    ${JSON.stringify(difference.with)}`,
    );
  }
  const act = firstDifference(without.acts, withExtra.acts);
  if (act !== undefined)
    problems.push(`acts differ at ${act.index}: without ${String(act.without)}, with ${String(act.with)}`);
  if (without.status !== withExtra.status) problems.push(`status: ${without.status} vs ${withExtra.status}`);
  return problems;
}

describe('pass-through listeners (engine.md contract 3)', () => {
  it(
    `E03 random sessions give the same log with and without a pass-through listener on every seam (${numRuns} runs)`,
    async () => {
      const started = performance.now();
      const result = await fc.check(
        fc.asyncProperty(scenario, passThrough, async (s, extra) => {
          const without = await runScenario(s, undefined);
          const withExtra = await runScenario(s, extra);
          count(s, extra, without);
          const problems = judge(without, withExtra);
          if (problems.length > 0) throw new Error(problems.join('\n'));
        }),
        { numRuns },
      );
      if (result.failed) {
        // The first differing pair and fast-check's seed, to replay with fc.assert(…, { seed, path }).
        console.log(
          `E03 failed: seed ${result.seed}, path ${result.counterexamplePath}\n${fc.stringify(result.counterexample)}\n${String(result.errorInstance)}`,
        );
      }
      expect(result.failed ? String(result.errorInstance) : '').toBe('');
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`E03: ${numRuns} runs in ${seconds} s; generated ${JSON.stringify(seen)}`);
      // The generator really produced each kind of batch, hangs, throws, cancels, steers and injections.
      for (const kind of ['parallel', 'exclusive', 'mixed'] as const)
        expect(seen[kind]).toBeGreaterThan(numRuns / 10);
      for (const kind of ['hangs', 'throws', 'cancels', 'injects', 'asyncPassThrough'] as const)
        expect(seen[kind]).toBeGreaterThan(numRuns / 20);
      // A steer reaches the log only when its turn takes another step (about one run in eleven).
      expect(seen.steers).toBeGreaterThan(numRuns / 40);
    },
    Math.max(120_000, numRuns * 300),
  );
});
