import type { SeamName, SeamPlugin } from '../../seams/index.js';

export interface ToolMetrics {
  /** Calls that produced a result (every outcome, denials included). */
  calls: number;
  errors: number;
  /** Error results by code. */
  codes: Record<string, number>;
  /** Time spent in `tools/execute` (wrappers and body), summed and the longest. */
  executeMs: number;
  maxExecuteMs: number;
}

export interface SeamMetrics {
  calls: number;
  failures: number;
  totalMs: number;
  maxMs: number;
}

export interface MetricsSnapshot {
  tools: Record<string, ToolMetrics>;
  seams: Record<string, SeamMetrics>;
}

/** A metrics plugin: counts and durations per tool and per seam, read with `snapshot()`. */
export interface MetricsPlugin extends SeamPlugin {
  snapshot(): MetricsSnapshot;
}

/**
 * Counts and times tool calls and the tool seams with pass-through listeners (they never decide).
 * @example const metrics = plugins.metrics(); seams.use(metrics); metrics.snapshot().tools.read.calls;
 */
export function metrics(): MetricsPlugin {
  const tools = new Map<string, ToolMetrics>();
  const seams = new Map<string, SeamMetrics>();
  const toolEntry = (name: string): ToolMetrics =>
    getOrCreate(tools, name, () => ({ calls: 0, errors: 0, codes: {}, executeMs: 0, maxExecuteMs: 0 }));

  const time = async <T>(seam: SeamName, run: () => Promise<T>): Promise<T> => {
    const entry = getOrCreate(seams, seam, () => ({ calls: 0, failures: 0, totalMs: 0, maxMs: 0 }));
    const started = performance.now();
    entry.calls += 1;
    try {
      return await run();
    } catch (error) {
      entry.failures += 1;
      throw error;
    } finally {
      const ms = performance.now() - started;
      entry.totalMs += ms;
      entry.maxMs = Math.max(entry.maxMs, ms);
    }
  };

  return {
    name: 'metrics',
    apply(registry) {
      const options = { prepend: true, name: 'metrics' };
      const disposers = [
        registry.on('tools/pre-execute', (_exec, next) => time('tools/pre-execute', next), options),
        registry.on('tools/post-execute', (_ctx, next) => time('tools/post-execute', next), options),
        registry.on(
          'tools/execute',
          async (exec, next) => {
            const started = performance.now();
            try {
              return await time('tools/execute', next);
            } finally {
              const entry = toolEntry(exec.name);
              const ms = performance.now() - started;
              entry.executeMs += ms;
              entry.maxExecuteMs = Math.max(entry.maxExecuteMs, ms);
            }
          },
          options,
        ),
        registry.on(
          'tools/result',
          ({ exec, result }) => {
            const entry = toolEntry(exec.name);
            entry.calls += 1;
            if (result.isError) {
              entry.errors += 1;
              entry.codes[result.error.code] = (entry.codes[result.error.code] ?? 0) + 1;
            }
          },
          { name: 'metrics' },
        ),
      ];
      return () => {
        for (const dispose of disposers) dispose();
      };
    },
    snapshot: () => ({
      tools: Object.fromEntries([...tools].map(([name, m]) => [name, { ...m, codes: { ...m.codes } }])),
      seams: Object.fromEntries([...seams].map(([name, m]) => [name, { ...m }])),
    }),
  };
}

function getOrCreate<T>(map: Map<string, T>, key: string, create: () => T): T {
  let entry = map.get(key);
  if (entry === undefined) {
    entry = create();
    map.set(key, entry);
  }
  return entry;
}
