import { ancestorsOf, type VizEdge, type VizGraph, type VizState } from './graph.js';

/** An edge moved to the block that can draw it, endpoints lifted to that block's children. */
export interface PlacedEdge {
  /** The compound state whose block holds the edge; `null` is the top level (around the root). */
  readonly block: VizState | null;
  readonly source: VizState;
  readonly target: VizState;
  readonly label: string;
}

/**
 * Place each edge in the block of the lowest common compound ancestor of its ends (Mermaid cannot draw
 * an edge between states in different composites); lifted ends are named in the label (`from x`, `to y`).
 * @param graph the machine graph
 * @example
 * const placed = placeEdges(readGraph(machine));
 */
export function placeEdges(graph: VizGraph): PlacedEdge[] {
  const placed: PlacedEdge[] = [];
  const seen = new Set<string>();
  for (const edge of graph.edges) {
    const item = placeEdge(graph, edge);
    const key = `${item.block?.id ?? ''}\u0000${item.source.id}\u0000${item.target.id}\u0000${item.label}`;
    if (seen.has(key)) continue;
    seen.add(key);
    placed.push(item);
  }
  return placed;
}

function placeEdge(graph: VizGraph, edge: VizEdge): PlacedEdge {
  const source = graph.states.get(edge.source)!;
  const target = graph.states.get(edge.target)!;
  const targetAncestors = new Set(ancestorsOf(target));
  // Parallel regions are partitions, not blocks: an edge between regions goes up to the parallel's parent.
  const block =
    ancestorsOf(source).find((state) => targetAncestors.has(state) && state.type === 'compound') ?? null;
  const liftedSource = liftTo(source, block);
  const liftedTarget = liftTo(target, block);
  const from = liftedSource === source ? '' : ` (from ${relativePath(source, liftedSource)})`;
  const to = liftedTarget === target ? '' : ` (to ${relativePath(target, liftedTarget)})`;
  return { block, source: liftedSource, target: liftedTarget, label: `${edge.label}${from}${to}` };
}

// The ancestor of `state` (or itself) that is a direct child of `block`; the root at the top level.
function liftTo(state: VizState, block: VizState | null): VizState {
  let at = state;
  while (at.parent !== block && at.parent !== null) at = at.parent;
  return at;
}

function relativePath(state: VizState, ancestor: VizState): string {
  const keys: string[] = [];
  for (let at: VizState | null = state; at !== null && at !== ancestor; at = at.parent) keys.unshift(at.key);
  return keys.join('.');
}
