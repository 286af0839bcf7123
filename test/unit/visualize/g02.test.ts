import { describe, expect, it } from 'vitest';
import { type AnyStateMachine, createMachine } from 'xstate';
import { readGraph } from '../../../visualize/graph.js';
import { toDot, toMermaid, toStatelyImport } from '../../../visualize/index.js';
import { toMermaidIds } from '../../../visualize/mermaidIds.js';
import { allMachines, invokeIdsOf, stateIdsOf } from './machines.js';

function evaluateStately(text: string): AnyStateMachine {
  const [header, ...rest] = text.split('\n');
  expect(header).toBe("import { createMachine } from 'xstate';");
  let machine: AnyStateMachine | undefined;
  const capture = (config: Parameters<typeof createMachine>[0]) => {
    machine = createMachine(config);
    return machine;
  };
  new Function('createMachine', rest.join('\n'))(capture);
  if (machine === undefined) throw new Error('the Stately text never called createMachine');
  return machine;
}

describe.each(allMachines)('%s', (_name, machine) => {
  const stateIds = stateIdsOf(machine);
  const invokeIds = invokeIdsOf(machine);

  it('G02 toMermaid, toDot, toStatelyImport produce output for all four machines', () => {
    expect(stateIds.length).toBeGreaterThan(3);
    // The toolCall machine invokes nothing: its phases are named actions (startPhase/runPhase).
    if (_name !== 'toolCall') expect(invokeIds.length).toBeGreaterThan(0);

    const mermaid = toMermaid(machine);
    expect(mermaid.startsWith('stateDiagram-v2\n')).toBe(true);
    const mermaidIds = toMermaidIds(readGraph(machine));
    for (const id of stateIds) {
      const key = machine.getStateNodeById(id).key;
      expect(mermaid).toMatch(new RegExp(`state "${key}(<br/>[^"]*)?" as ${mermaidIds.get(id)}( \\{)?\\n`));
    }
    expect(new Set(mermaidIds.values()).size).toBe(stateIds.length);

    const dot = toDot(machine);
    expect(dot.startsWith(`digraph "${machine.id}" {`)).toBe(true);
    for (const id of stateIds) expect(dot).toMatch(new RegExp(`\\n\\s*"${id.replace(/\./g, '\\.')}" \\[`));

    const stately = toStatelyImport(machine);
    for (const key of stateIds.slice(1).map((id) => machine.getStateNodeById(id).key)) {
      expect(stately).toContain(`"${key}": {`);
    }

    for (const invokeId of invokeIds) {
      expect(mermaid).toContain(`invoke ${invokeId}`);
      expect(dot).toContain(`invoke ${invokeId}`);
      expect(stately).toContain(`"id": "${invokeId}"`);
    }
  });

  it('G02 the Stately text re-evaluates to a machine with the same state ids', () => {
    const evaluated = evaluateStately(toStatelyImport(machine));
    expect(stateIdsOf(evaluated)).toEqual(stateIds);
    expect(invokeIdsOf(evaluated)).toEqual(invokeIds);
  });

  it('renders the same text every time', () => {
    expect(toMermaid(machine)).toBe(toMermaid(machine));
    expect(toDot(machine)).toBe(toDot(machine));
    expect(toStatelyImport(machine)).toBe(toStatelyImport(machine));
  });
});
