import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { describeDelay, describeEvent, describeTransition } from './labels.js';

/** A state node as the renderers see it: plain data, in document order. */
export interface VizState {
  readonly id: string;
  readonly key: string;
  readonly type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  readonly parent: VizState | null;
  readonly children: readonly VizState[];
  /** The initial child's id (compound states only). */
  readonly initial: string | null;
  readonly invokes: readonly VizInvoke[];
}

/** An invoked actor: its id, its `src`, and the seam it calls (from `meta`/`description`, else the src). */
export interface VizInvoke {
  readonly id: string;
  readonly src: string;
  readonly seam: string;
}

/** One drawn transition (targetless transitions only run actions and are not drawn). */
export interface VizEdge {
  readonly source: string;
  readonly target: string;
  readonly label: string;
}

/** A machine read into renderer-friendly data. */
export interface VizGraph {
  readonly root: VizState;
  readonly states: ReadonlyMap<string, VizState>;
  readonly edges: readonly VizEdge[];
}

/**
 * Read a machine's state tree, transitions (`on`, `onDone`/`onError`, `after`, `always`) and invokes.
 * @param machine any XState v5 machine
 * @example
 * const { states, edges } = readGraph(toolCallMachine);
 */
export function readGraph(machine: AnyStateMachine): VizGraph {
  const states = new Map<string, VizState>();
  const edges: VizEdge[] = [];
  const root = readState(machine.root, null, states, edges);
  return { root, states, edges };
}

function readState(
  node: AnyStateNode,
  parent: VizState | null,
  states: Map<string, VizState>,
  edges: VizEdge[],
): VizState {
  const children: VizState[] = [];
  const state: VizState = {
    id: node.id,
    key: node.key,
    type: node.type,
    parent,
    children,
    initial: node.type === 'compound' ? (node.initial?.target[0]?.id ?? null) : null,
    invokes: node.invoke.map((invoke) => readInvoke(node, invoke)),
  };
  states.set(state.id, state);
  readEdges(node, edges);
  for (const child of Object.values(node.states)) children.push(readState(child, state, states, edges));
  return state;
}

function readEdges(node: AnyStateNode, edges: VizEdge[]): void {
  const delays = new Map(node.after.map((after) => [after.eventType, after.delay] as const));
  for (const [eventType, transitions] of node.transitions) {
    const delay = delays.get(eventType);
    const event = delays.has(eventType) ? describeDelay(delay) : describeEvent(eventType);
    for (const transition of transitions) addEdges(edges, node.id, transition, event);
  }
  for (const transition of node.always ?? []) addEdges(edges, node.id, transition, 'always');
}

function addEdges(
  edges: VizEdge[],
  source: string,
  transition: { readonly target?: readonly AnyStateNode[] | undefined; readonly guard?: unknown },
  event: string,
): void {
  const label = describeTransition(event, transition.guard);
  for (const target of transition.target ?? []) edges.push({ source, target: target.id, label });
}

function readInvoke(node: AnyStateNode, invoke: { id: string; src: unknown }): VizInvoke {
  const src = typeof invoke.src === 'string' ? invoke.src : 'inline';
  return { id: invoke.id, src, seam: readSeam(node, invoke) ?? src };
}

// The seam an invoke calls, when the machine says so: `invoke.meta.seam`, `state.meta.seam`, or the description.
function readSeam(node: AnyStateNode, invoke: object): string | undefined {
  const fromInvoke = seamOf((invoke as { meta?: unknown }).meta);
  if (fromInvoke !== undefined) return fromInvoke;
  const fromState = seamOf(node.meta);
  if (fromState !== undefined) return fromState;
  return typeof node.description === 'string' && node.description !== '' ? node.description : undefined;
}

function seamOf(meta: unknown): string | undefined {
  const seam = (meta as { seam?: unknown } | null | undefined)?.seam;
  return typeof seam === 'string' ? seam : undefined;
}

/** The invoke note: `invoke id (src: s) → seam`, leaving out what repeats. */
export function describeInvoke(invoke: VizInvoke): string {
  const src = invoke.src === invoke.id ? '' : ` (src: ${invoke.src})`;
  const seam = invoke.seam === invoke.src ? '' : ` → ${invoke.seam}`;
  return `invoke ${invoke.id}${src}${seam}`;
}

/** The ancestors of a state, nearest first, not including itself. */
export function ancestorsOf(state: VizState): VizState[] {
  const ancestors: VizState[] = [];
  for (let at = state.parent; at !== null; at = at.parent) ancestors.push(at);
  return ancestors;
}
