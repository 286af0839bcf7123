import { describeReceived } from '../kernel/index.js';
import { createDecidedNotice } from './decidedNotice.js';
import { createDisposer } from './disposer.js';
import { deepFreeze } from './freeze.js';
import type { ListenerEntry, Register } from './listener-entry.js';
import { seamModes } from './names.js';
import { usePlugin } from './plugin.js';
import { consoleLogger, createReporter } from './report.js';
import { createSeamSet } from './seam-set.js';
import { runNotify } from './sequence.js';
import type { ApprovalChannel, SeamLogger, SeamName, SeamSet, Seams } from './types.js';
import { validateFunction, validateListenerOptions, validateSeamName } from './validate-arguments.js';

/** Options of `createSeams()`. */
export interface SeamsOptions {
  /** Receives every contained listener failure; defaults to `console`. */
  logger?: SeamLogger;
}

type Lists = ReadonlyMap<SeamName | 'guard', readonly ListenerEntry[]>;
interface Snapshot {
  readonly set: SeamSet;
  readonly lists: Lists;
}

// Bounds the per-version cache when many short-lived agents take snapshots between registry changes.
const MAX_CACHED_SNAPSHOTS = 64;

/**
 * Creates a seam registry: register listeners, guards and plugins, then dispatch through snapshots.
 * @param options `logger` receives contained listener failures.
 * @example
 * const seams = createSeams();
 * using _ = seams.on(Seam.preExecute, (exec, next) => (exec.name === 'rm' ? { kind: 'deny', reason: 'no' } : next()));
 */
export function createSeams(options: SeamsOptions = {}): Seams {
  const logger = options.logger ?? consoleLogger;
  const report = createReporter(logger);
  const lists = new Map<SeamName | 'guard', ListenerEntry[]>();
  const counters = new Map<SeamName | 'guard', number>();
  const cache = new Map<string | undefined, Snapshot>();
  let version = 0;
  let cachedVersion = 0;
  // Listeners registered for one agent: while there are none, every agent sees the same snapshot.
  let agentScoped = 0;
  let approval: ApprovalChannel | undefined;

  const register: Register = (seam, fn, listenerOptions, plugin) => {
    const count = (counters.get(seam) ?? 0) + 1;
    counters.set(seam, count);
    const fallback = `${seam}#${count}`;
    const name =
      listenerOptions.name ?? (plugin === undefined ? fallback : `${plugin}.${fn.name || fallback}`);
    const entry: ListenerEntry = Object.freeze({ seam, name, fn, agent: listenerOptions.agent });
    const list = lists.get(seam) ?? [];
    lists.set(seam, list);
    // Dispatch order is stored directly: index 0 is outermost, so `prepend` goes to the front.
    if (listenerOptions.prepend) list.unshift(entry);
    else list.push(entry);
    if (entry.agent !== undefined) agentScoped++;
    version++;
    return createDisposer(() => {
      const index = list.indexOf(entry);
      if (index === -1) return;
      list.splice(index, 1);
      if (entry.agent !== undefined) agentScoped--;
      version++;
    });
  };

  // Any listener on a seam, for any agent: without one, no snapshot can have it.
  const hasListeners = (seam: SeamName): boolean => (lists.get(seam)?.length ?? 0) > 0;

  const takeSnapshot = (forAgent: string | undefined): Snapshot => {
    // Without agent-scoped listeners the filter keeps every entry: one snapshot serves all agents.
    const agentId = agentScoped === 0 ? undefined : forAgent;
    if (cachedVersion !== version || cache.size >= MAX_CACHED_SNAPSHOTS) {
      cache.clear();
      cachedVersion = version;
    }
    const cached = cache.get(agentId);
    if (cached) return cached;
    const filtered = new Map<SeamName | 'guard', readonly ListenerEntry[]>();
    for (const [seam, list] of lists) {
      const visible = list.filter((entry) => entry.agent === undefined || entry.agent === agentId);
      if (visible.length > 0) filtered.set(seam, Object.freeze(visible));
    }
    const set = createSeamSet(filtered, {
      report,
      emitDecided: (seam, decidedBy, decision, scope, steps) => {
        // Nobody observes decisions: the notice is not built (notify would find no listener either).
        if (!hasListeners('seam/decided')) return;
        seams.notify('seam/decided', createDecidedNotice(seam, decidedBy, decision, scope, steps), scope);
      },
    });
    const snapshot = { set, lists: filtered };
    cache.set(agentId, snapshot);
    return snapshot;
  };

  const seams: Seams = {
    logger,
    get approval() {
      return approval;
    },
    on(name, listener, rawOptions) {
      const seam = validateSeamName('on', name);
      validateFunction('on', 'listener', listener);
      return register(seam, listener as ListenerEntry['fn'], validateListenerOptions('on', rawOptions));
    },
    guard(fn, rawOptions) {
      validateFunction('guard', 'fn', fn);
      const { prepend: _ignored, ...guardOptions } = validateListenerOptions('guard', rawOptions);
      return register('guard', fn, guardOptions);
    },
    use: (plugin) => usePlugin(plugin, seams, register, logger),
    setApproval(channel) {
      if (channel !== undefined && typeof channel?.request !== 'function') {
        throw new TypeError(
          `Expected the approval channel to be an object with a \`request\` function, got ${describeReceived(channel)}`,
        );
      }
      approval = channel;
    },
    listeners(name) {
      const seam = validateSeamName('listeners', name, true);
      return (lists.get(seam) ?? []).map((entry) => entry.name);
    },
    snapshot: (agentId) => takeSnapshot(agentId).set,
    notify(name, payload, scope) {
      if (seamModes[name] !== 'notify') validateNotifyName(name);
      if (!hasListeners(name)) return;
      const agentId = scope?.agentId ?? readAgentId(payload);
      const entries = takeSnapshot(agentId).lists.get(name);
      // Nobody listening: skip the freeze walk, so an unobserved notification costs nothing.
      if (!entries) return;
      runNotify(entries, name, deepFreeze(payload), report, scope);
    },
  };
  return Object.freeze(seams);
}

// Notification payloads carry `agentId`; tool payloads carry it on `exec.agent`.
function readAgentId(payload: object): string | undefined {
  const raw = payload as { agentId?: unknown; agent?: { id?: unknown }; exec?: { agent?: { id?: unknown } } };
  const id = raw.agentId ?? raw.agent?.id ?? raw.exec?.agent?.id;
  return typeof id === 'string' ? id : undefined;
}

function validateNotifyName(rawName: unknown): never {
  const seam = validateSeamName('notify', rawName);
  throw new TypeError(
    `Expected the \`name\` argument of seams.notify() to be a notify seam, got "${seam}" (a ${seamModes[seam]} seam); dispatch it through seams.snapshot() instead`,
  );
}
