import type { AnyStateMachine, StateValue } from 'xstate';

interface NodeLike {
  readonly id: string;
  readonly states: Readonly<Record<string, NodeLike>>;
}

/**
 * The ids of the state nodes active in a state value (the root included), e.g. `{ step: 'preStep' }`
 * of the `turn` machine → `turn`, `turn.step`, `turn.step.preStep`.
 * @param machine the machine the value belongs to
 * @param value a snapshot value
 */
export function activeStateNodeIds(machine: AnyStateMachine, value: StateValue): string[] {
  const ids: string[] = [];
  const walk = (node: NodeLike, sub: StateValue | undefined): void => {
    ids.push(node.id);
    if (sub === undefined) return;
    const entries = typeof sub === 'string' ? [[sub, undefined] as const] : Object.entries(sub);
    for (const [key, child] of entries) {
      const childNode = node.states[key];
      if (childNode === undefined) {
        throw new Error(`State value names "${key}", which is not a child of state node "${node.id}"`);
      }
      walk(childNode, child as StateValue | undefined);
    }
  };
  walk(machine.root as unknown as NodeLike, value);
  return ids;
}

/** Every state node id of a machine, depth first (the root included). */
export function allStateNodeIds(machine: AnyStateMachine): string[] {
  const ids: string[] = [];
  const walk = (node: NodeLike): void => {
    ids.push(node.id);
    for (const child of Object.values(node.states)) walk(child);
  };
  walk(machine.root as unknown as NodeLike);
  return ids;
}

/**
 * The state node ids of `machine` that were never reached.
 * @param machine the machine under test
 * @param visited reached state node ids (`runPath(...).visitedStates`, merged over a run of paths)
 * @example
 * expect(coverage(turnMachine, visited)).toEqual([]);
 */
export function coverage(machine: AnyStateMachine, visited: Iterable<string>): string[] {
  const reached = new Set(visited);
  return allStateNodeIds(machine).filter((id) => !reached.has(id));
}
