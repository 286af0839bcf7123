import type { AnyMachineSnapshot, AnyStateMachine, EventObject } from 'xstate';
import { getShortestPaths, type StatePath } from 'xstate/graph';

/** Which seams have listeners in one traversal: `n + 2` of them per machine. */
export interface SeamConfiguration {
  /** `'all empty'`, `'all present'` or `'without <seam>'`. */
  readonly name: string;
  readonly present: Readonly<Record<string, boolean>>;
}

/** A path through a machine as `xstate/graph` returns it. */
export type MachinePath = StatePath<AnyMachineSnapshot, EventObject>;

/** The shortest paths of one seam configuration. */
export interface SeamConfigurationPaths {
  readonly config: SeamConfiguration;
  /** The machine input the traversal started from. */
  readonly input: unknown;
  readonly paths: readonly MachinePath[];
}

export interface ShortestSeamPathsOptions {
  /** The seams the machine snapshots into context (e.g. `turnSeams`); empty means one traversal. */
  readonly seams?: readonly string[];
  /** The machine input for one seam configuration; takes precedence over `input`. */
  readonly inputFor?: (config: SeamConfiguration) => unknown;
  /** A fixed input, when the seams are not read from it. */
  readonly input?: unknown;
  /** The machine's `graphEvents`: every outcome of every invoke plus its external events. */
  readonly events?: readonly EventObject[];
  /** Explicit configurations instead of the `n + 2` default. */
  readonly seamConfigs?: readonly SeamConfiguration[];
  /**
   * Dedup key of a graph node; the default is `JSON.stringify({ value, context })`. It also gets the
   * event that led to the node: keying by it too gives every transition its own path (transition
   * coverage), where a transition that changes nothing in context would otherwise get none.
   */
  readonly serializeState?: (snapshot: AnyMachineSnapshot, event: EventObject | undefined) => string;
  /** Narrows the enabled events further (e.g. no external event while the machine confirms its own start). */
  readonly filterEvents?: (snapshot: AnyMachineSnapshot, event: EventObject) => boolean;
  /** Bound on explored edges per traversal (`xstate/graph` throws past it). */
  readonly limit?: number;
}

/**
 * The `n + 2` seam configurations of a machine: all empty, all present, and each seam absent in turn.
 * @param seams the seam names the machine snapshots
 */
export function seamConfigurations(seams: readonly string[]): SeamConfiguration[] {
  const all = (present: boolean) => Object.fromEntries(seams.map((seam) => [seam, present]));
  const configs: SeamConfiguration[] = [
    { name: 'all empty', present: all(false) },
    { name: 'all present', present: all(true) },
  ];
  for (const seam of seams)
    configs.push({ name: `without ${seam}`, present: { ...all(true), [seam]: false } });
  return configs;
}

/**
 * Shortest paths (`xstate/graph`, only enabled events) for every seam configuration of a machine.
 * @param machine the un-provided machine (actors never run during traversal)
 * @param options seams, input, graph events, dedup key and limit
 * @example
 * const runs = shortestSeamPaths(turnMachine, { seams: turnSeams, events: graphEvents, inputFor: (c) => inputWith(c.present) });
 */
export function shortestSeamPaths(
  machine: AnyStateMachine,
  options: ShortestSeamPathsOptions = {},
): SeamConfigurationPaths[] {
  const configs = options.seamConfigs ?? seamConfigurations(options.seams ?? []);
  return configs.map((config) => {
    const input = options.inputFor ? options.inputFor(config) : options.input;
    const paths = getShortestPaths(machine, {
      input,
      ...(options.events === undefined ? {} : { events: options.events }),
      // A finished snapshot takes no events: without this, `can` lets the graph step past a final state.
      filterEvents: (snapshot, event) =>
        snapshot.status === 'active' &&
        snapshot.can(event) &&
        (options.filterEvents?.(snapshot as AnyMachineSnapshot, event) ?? true),
      ...(options.serializeState === undefined
        ? {}
        : {
            serializeState: (snapshot, event) =>
              options.serializeState!(snapshot as AnyMachineSnapshot, event),
          }),
      ...(options.limit === undefined ? {} : { limit: options.limit }),
    }) as unknown as MachinePath[];
    return { config, input, paths };
  });
}

/** One line naming a path's events, for test titles and failure messages. */
export function describePath(path: MachinePath): string {
  const events = path.steps.slice(1).map((step) => describeEvent(step.event));
  return events.length === 0 ? '(initial state)' : events.join(' → ');
}

/** A short event label: `done.model(stop)`, `error.preStep`, `CANCEL(user)`. */
export function describeEvent(event: EventObject): string {
  const match = /^xstate\.(done|error)\.actor\.(.+)$/.exec(event.type);
  if (match) {
    const payload = match[1] === 'done' ? (event as { output?: unknown }).output : undefined;
    return `${match[1]}.${match[2]}${payload === undefined ? '' : `(${summarize(payload)})`}`;
  }
  if (event.type.startsWith('xstate.after.'))
    return `after.${event.type.slice('xstate.after.'.length).split('.')[0]}`;
  const { type, ...rest } = event;
  return Object.keys(rest).length === 0 ? type : `${type}(${summarize(rest)})`;
}

// Picks the field that names the variant, so titles stay short and distinct.
function summarize(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? String(value);
  const record = value as Record<string, unknown>;
  for (const key of ['kind', 'action', 'finish', 'cause', 'aborted', 'decision']) {
    if (key in record) {
      const field = record[key];
      return typeof field === 'object' && field !== null ? summarize(field) : `${key}:${String(field)}`;
    }
  }
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}
