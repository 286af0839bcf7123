import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { provideAgentLogic } from '../../../machines/agent/logic.js';
import { agentMachine } from '../../../machines/agent.js';
import { fixedServices } from '../../../machines/runtime/index.js';
import { provideToolBatchLogic } from '../../../machines/toolBatch/logic.js';
import { toolBatchMachine } from '../../../machines/toolBatch.js';
import { provideToolCallLogic } from '../../../machines/toolCall/logic.js';
import { toolCallMachine } from '../../../machines/toolCall.js';
import { provideTurnLogic } from '../../../machines/turn/logic.js';
import { turnMachine } from '../../../machines/turn.js';
import { repositoryRoot } from '../support/sourceScan.js';

// engine.md, contract 5: an action is read in one place, its implementation beside its name in
// `setup({ actions })`; path tests stub with `machine.provide(...)`, production code has no placeholder.
const unbound = fixedServices({} as never);
const machines: readonly {
  readonly name: string;
  readonly machine: AnyStateMachine;
  readonly provided: AnyStateMachine;
}[] = [
  { name: 'toolCall', machine: toolCallMachine, provided: provideToolCallLogic(unbound) },
  { name: 'toolBatch', machine: toolBatchMachine, provided: provideToolBatchLogic(unbound) },
  { name: 'turn', machine: turnMachine, provided: provideTurnLogic(unbound) },
  { name: 'agent', machine: agentMachine, provided: provideAgentLogic(unbound) },
];

// A placeholder in a setup: an empty arrow body, a `noop`, an arrow answering undefined, an actor that
// only throws "not provided".
const placeholderPatterns: readonly { readonly rule: string; readonly pattern: RegExp }[] = [
  { rule: 'an empty arrow body', pattern: /=>\s*\{\s*\}/ },
  { rule: 'a noop', pattern: /\bnoop\b/ },
  { rule: 'an arrow answering undefined', pattern: /=>\s*(undefined|void 0)\b/ },
  { rule: 'an actor that is not provided', pattern: /not provided|unprovided/i },
];

/** The findings of the placeholder patterns in a source text, as `line: rule`. */
function placeholdersIn(source: string): string[] {
  const findings: string[] = [];
  source.split('\n').forEach((text, index) => {
    if (text.trimStart().startsWith('//')) return;
    for (const { rule, pattern } of placeholderPatterns)
      if (pattern.test(text)) findings.push(`${index + 1}: ${rule}: ${text.trim()}`);
  });
  return findings;
}

const isNamed = (action: unknown): string | undefined => {
  if (typeof action === 'string') return action;
  const type = (action as { type?: unknown } | null)?.type;
  return typeof action === 'object' && typeof type === 'string' ? type : undefined;
};

/** Every action name and actor source the chart references, from its state nodes. */
function referencedNames(machine: AnyStateMachine): { actions: Set<string>; actors: Set<string> } {
  const actions = new Set<string>();
  const actors = new Set<string>();
  const addAll = (list: readonly unknown[] | undefined): void => {
    for (const action of list ?? []) {
      const name = isNamed(action);
      if (name !== undefined && !name.startsWith('xstate.')) actions.add(name);
    }
  };
  const visit = (node: AnyStateNode): void => {
    addAll(node.entry);
    addAll(node.exit);
    for (const transitions of node.transitions.values())
      for (const transition of transitions) addAll(transition.actions);
    for (const transition of node.always ?? []) addAll(transition.actions);
    for (const invoke of node.invoke) if (typeof invoke.src === 'string') actors.add(invoke.src);
    for (const child of Object.values(node.states)) visit(child as AnyStateNode);
  };
  visit(machine.root);
  return { actions, actors };
}

/** Whether an implementation does nothing: a function whose body is empty. */
const isEmptyFunction = (implementation: unknown): boolean =>
  typeof implementation === 'function' &&
  /^(async\s*)?(\([^)]*\)|\w+)\s*=>\s*\{\s*\}$|^function[^{]*\{\s*\}$/.test(implementation.toString().trim());

describe('E06 an action is read in one place: its body beside its name in setup', () => {
  it('E06 the detector finds what it scans for (a scan that sees nothing would pass anything)', () => {
    const sample = [
      'runPhase: (_, _params: { phase: SyncToolPhase }) => {},',
      'stopPhase: noop,',
      'watchScope: fromCallback(() => undefined),',
      "model: unprovided<Answer, Input>('model'),",
      'markAborted: assign({ aborted: true }),',
    ].join('\n');
    expect(placeholdersIn(sample).map((finding) => finding.split(': ')[1])).toEqual([
      'an empty arrow body',
      'a noop',
      'an arrow answering undefined',
      'an actor that is not provided',
    ]);
    expect(isEmptyFunction((_: unknown, _params: unknown) => {})).toBe(true);
    expect(isEmptyFunction(() => 1)).toBe(false);
  });

  for (const { name } of machines) {
    it(`E06 machines/${name}/setup.ts holds no no-op placeholder action or actor`, () => {
      const source = readFileSync(path.join(repositoryRoot, 'machines', name, 'setup.ts'), 'utf8');
      expect(placeholdersIn(source)).toEqual([]);
    });
  }

  for (const { name, machine, provided } of machines) {
    it(`E06 every action and actor the ${name} chart names has its real implementation in its setup`, () => {
      const { actions, actors } = referencedNames(machine);
      const implementations = machine.implementations as {
        actions: Record<string, unknown>;
        actors: Record<string, unknown>;
      };
      expect(actions.size).toBeGreaterThan(0);
      expect([...actions].filter((action) => !(action in implementations.actions))).toEqual([]);
      expect([...actors].filter((actor) => !(actor in implementations.actors))).toEqual([]);
      expect(
        Object.keys(implementations.actions).filter((action) =>
          isEmptyFunction(implementations.actions[action]),
        ),
      ).toEqual([]);
      // The fixed-services logic re-binds names its setup already has: none is defined only there.
      const rebound = provided.implementations as { actions: object; actors: object };
      expect(Object.keys(rebound.actions).filter((action) => !(action in implementations.actions))).toEqual(
        [],
      );
      expect(Object.keys(rebound.actors).filter((actor) => !(actor in implementations.actors))).toEqual([]);
    });
  }
});
