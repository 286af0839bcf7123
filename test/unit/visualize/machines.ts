import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { agentMachine, toolBatchMachine, toolCallMachine, turnMachine } from '../../../machines/index.js';

/** The four machines the diagrams cover, by name. */
export const allMachines: ReadonlyArray<readonly [string, AnyStateMachine]> = [
  ['agent', agentMachine],
  ['turn', turnMachine],
  ['toolBatch', toolBatchMachine],
  ['toolCall', toolCallMachine],
];

/** Every state node id, walking `machine.root` (root first, document order). */
export function stateIdsOf(machine: AnyStateMachine): string[] {
  const ids: string[] = [];
  const visit = (node: AnyStateNode): void => {
    ids.push(node.id);
    for (const child of Object.values(node.states) as AnyStateNode[]) visit(child);
  };
  visit(machine.root);
  return ids;
}

/** Every invoke id in the machine. */
export function invokeIdsOf(machine: AnyStateMachine): string[] {
  const ids: string[] = [];
  const visit = (node: AnyStateNode): void => {
    for (const invoke of node.invoke) ids.push(invoke.id);
    for (const child of Object.values(node.states) as AnyStateNode[]) visit(child);
  };
  visit(machine.root);
  return ids;
}
