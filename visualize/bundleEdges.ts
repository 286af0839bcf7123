import { ancestorsOf, type VizGraph, type VizState } from './graph.js';

/** One drawn edge standing for one or more transitions. */
export interface BundledEdge {
  readonly source: VizState;
  readonly target: VizState;
  /** One line per transition label, in document order, each once. */
  readonly labels: readonly string[];
}

/** Names per line in the `from …` list of a shared exit. */
const NAMES_PER_LINE = 3;

/**
 * Bundle the edges a renderer draws. A transition with the same label and target from several states of
 * one compound (`always [hasFailure]` from each step of the turn) becomes one edge from that compound,
 * listing the states it leaves; then edges between the same two states become one edge with a label
 * line per transition, since Graphviz sets parallel labels side by side, where they run together.
 * @param graph the machine graph
 * @example
 * for (const edge of bundleEdges(readGraph(machine))) console.log(edge.labels.join('\n'));
 */
export function bundleEdges(graph: VizGraph): BundledEdge[] {
  const byExit = new Map<string, { label: string; target: VizState; sources: VizState[] }>();
  for (const edge of graph.edges) {
    const target = graph.states.get(edge.target)!;
    const key = `${edge.target}\u0000${edge.label}`;
    const exit = byExit.get(key) ?? { label: edge.label, target, sources: [] };
    const source = graph.states.get(edge.source)!;
    if (!exit.sources.includes(source)) exit.sources.push(source);
    byExit.set(key, exit);
  }
  // Drawn in document order of each bundle's first transition: Graphviz ranks by edge order.
  const bundles = new Map<string, { source: VizState; target: VizState; labels: string[] }>();
  for (const edge of graph.edges) {
    const exit = byExit.get(`${edge.target}\u0000${edge.label}`)!;
    const shared = exit.sources.length > 1 ? sharedSource(exit.sources, exit.target) : undefined;
    const source = shared ?? graph.states.get(edge.source)!;
    const label =
      shared === undefined ? edge.label : [edge.label, ...fromLines(shared, exit.sources)].join('\n');
    const key = `${source.id}\u0000${exit.target.id}`;
    const bundle = bundles.get(key) ?? { source, target: exit.target, labels: [] };
    if (!bundle.labels.includes(label)) bundle.labels.push(label);
    bundles.set(key, bundle);
  }
  return [...bundles.values()];
}

// The compound all `sources` sit in, when the target lies outside it (else the exit cannot leave it).
function sharedSource(sources: readonly VizState[], target: VizState): VizState | undefined {
  const [first, ...rest] = sources;
  const common = ancestorsOf(first!).find(
    (ancestor) =>
      ancestor.type === 'compound' && rest.every((source) => ancestorsOf(source).includes(ancestor)),
  );
  if (common === undefined || common.parent === null) return undefined;
  return target === common || ancestorsOf(target).includes(common) ? undefined : common;
}

// `from a, b, c` in lines: a state whose children all take the exit is named instead of its children.
function fromLines(container: VizState, sources: readonly VizState[]): string[] {
  const names = namesUnder(container, new Set(sources)).map((state) => state.key);
  const lines: string[] = [];
  for (let at = 0; at < names.length; at += NAMES_PER_LINE) {
    const part = names.slice(at, at + NAMES_PER_LINE).join(', ');
    lines.push(at === 0 ? `from ${part}` : part);
  }
  return lines;
}

// The states under `state` that take the exit, in document order, each child set folded into its parent.
function namesUnder(state: VizState, sources: ReadonlySet<VizState>): VizState[] {
  const names: VizState[] = [];
  for (const child of state.children) {
    if (sources.has(child)) names.push(child);
    else if (child.children.length > 0) {
      const inner = namesUnder(child, sources);
      const folded = inner.length === child.children.length && inner.every((s) => child.children.includes(s));
      names.push(...(folded ? [child] : inner));
    }
  }
  return names;
}
