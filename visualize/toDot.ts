import type { AnyStateMachine } from 'xstate';
import { bundleEdges } from './bundleEdges.js';
import { ancestorsOf, describeInvoke, readGraph, type VizState } from './graph.js';

const FONT = '"Helvetica,Arial,Liberation Sans,sans-serif"';

/**
 * Render a machine as Graphviz DOT: compound and parallel states as clusters (`compound=true`, edges
 * clipped with `lhead`/`ltail`), a point marking each initial state, and the same labels as `toMermaid`.
 * @param machine any XState v5 machine
 * @example
 * writeFileSync('toolCall.dot', toDot(toolCallMachine)); // dot -Tsvg toolCall.dot
 */
export function toDot(machine: AnyStateMachine): string {
  const graph = readGraph(machine);
  const lines = [
    `digraph ${quote(graph.root.id)} {`,
    '  compound=true;',
    // One ranking across clusters: without it, nested seam states pull the flow sideways and upwards.
    '  newrank=true;',
    // Edge labels are laid out as nodes: this keeps the labels of neighbouring edges apart.
    '  nodesep=0.5;',
    // Helvetica metrics for the layout; viewers without Helvetica fall back to fonts of the same widths.
    `  fontname=${FONT};`,
    `  node [shape=box, style=rounded, fontname=${FONT}, fontsize=11];`,
    `  edge [fontname=${FONT}, fontsize=9];`,
  ];

  const writeState = (state: VizState, indent: string): void => {
    const label = quote([state.key, ...state.invokes.map(describeInvoke)].join('\n'));
    if (state.children.length === 0) {
      const shape =
        state.type === 'final' ? ', peripheries=2' : state.type === 'history' ? ', shape=circle' : '';
      lines.push(`${indent}${quote(state.id)} [label=${label}${shape}];`);
      return;
    }
    lines.push(`${indent}subgraph ${quote(clusterOf(state))} {`);
    const style = state.type === 'parallel' ? 'rounded,dashed' : 'rounded';
    lines.push(`${indent}  label=${label}; style=${quote(style)}; labeljust=l;`);
    // The state's own node: the initial marker of a compound state, an invisible anchor of a parallel one.
    const anchor = state.type === 'parallel' ? 'style=invis, width=0' : 'width=0.1';
    lines.push(`${indent}  ${quote(state.id)} [shape=point, label="", ${anchor}];`);
    if (state.initial !== null) lines.push(`${indent}  ${quote(state.id)} -> ${quote(state.initial)};`);
    for (const child of state.children) writeState(child, `${indent}  `);
    lines.push(`${indent}}`);
  };

  writeState(graph.root, '  ');
  for (const { source, target, labels } of bundleEdges(graph)) {
    const attributes = [`label=${quote(labels.join('\n'))}`];
    if (source.children.length > 0 && !isWithin(target, source))
      attributes.push(`ltail=${quote(clusterOf(source))}`);
    if (target.children.length > 0 && !isWithin(source, target))
      attributes.push(`lhead=${quote(clusterOf(target))}`);
    lines.push(`  ${quote(source.id)} -> ${quote(target.id)} [${attributes.join(', ')}];`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

function clusterOf(state: VizState): string {
  return `cluster_${state.id}`;
}

// `state` is `container` or inside it: clipping at the container's cluster would be meaningless.
function isWithin(state: VizState, container: VizState): boolean {
  return state === container || ancestorsOf(state).includes(container);
}

function quote(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r?\n/g, '\\n')}"`;
}
