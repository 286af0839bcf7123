import type { AnyStateMachine } from 'xstate';
import { describeInvoke, readGraph, type VizState } from './graph.js';
import { escapeMermaid, toMermaidIds } from './mermaidIds.js';
import { type PlacedEdge, placeEdges } from './placeEdges.js';

/**
 * Render a machine as a Mermaid `stateDiagram-v2` (renders on GitHub): compound and parallel states,
 * initial and final markers, event/`always`/`after`/done/error edges with guards, and invoke notes.
 * @param machine any XState v5 machine
 * @example
 * writeFileSync('toolCall.mmd', toMermaid(toolCallMachine));
 */
export function toMermaid(machine: AnyStateMachine): string {
  const graph = readGraph(machine);
  const ids = toMermaidIds(graph);
  const blocks = new Map<VizState | null, PlacedEdge[]>();
  for (const edge of placeEdges(graph)) {
    const list = blocks.get(edge.block) ?? [];
    list.push(edge);
    blocks.set(edge.block, list);
  }
  const idOf = (state: VizState): string => ids.get(state.id)!;
  const lines = ['stateDiagram-v2'];

  // Invoke notes sit in the state's box: Mermaid draws `note` blocks outside composites, far from their state.
  const writeState = (state: VizState, indent: string): void => {
    const name = state.type === 'history' ? `${state.key} (history)` : state.key;
    const notes = state.invokes.map((invoke) => escapeMermaid(describeInvoke(invoke)));
    if (state.children.length === 0) {
      lines.push(`${indent}state "${escapeMermaid(name)}" as ${idOf(state)}`);
      for (const note of notes) lines.push(`${indent}${idOf(state)} : ${note}`);
      return;
    }
    // A composite takes no description lines, so its notes join the label.
    const label = [escapeMermaid(name), ...notes].join('<br/>');
    lines.push(`${indent}state "${label}" as ${idOf(state)} {`);
    writeBlock(state, `${indent}  `);
    lines.push(`${indent}}`);
  };

  const writeEdges = (block: VizState | null, indent: string): void => {
    for (const edge of blocks.get(block) ?? []) {
      lines.push(`${indent}${idOf(edge.source)} --> ${idOf(edge.target)} : ${escapeMermaid(edge.label)}`);
    }
  };

  const writeBlock = (state: VizState, indent: string): void => {
    if (state.type === 'parallel') {
      // Regions are `--`-separated partitions; edges between regions were placed a level up.
      state.children.forEach((region, index) => {
        if (index > 0) lines.push(`${indent}--`);
        writeState(region, indent);
      });
      return;
    }
    if (state.initial !== null) lines.push(`${indent}[*] --> ${ids.get(state.initial)!}`);
    for (const child of state.children) writeState(child, indent);
    for (const child of state.children) {
      if (child.type === 'final') lines.push(`${indent}${idOf(child)} --> [*]`);
    }
    writeEdges(state, indent);
  };

  writeState(graph.root, '  ');
  writeEdges(null, '  ');
  return `${lines.join('\n')}\n`;
}
