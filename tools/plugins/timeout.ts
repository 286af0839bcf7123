import type { ToolResult } from '../../kernel/index.js';
import { describeReceived } from '../../kernel/index.js';
import type { SeamPlugin } from '../../seams/index.js';
import { createFailureResult, ToolMessage } from '../results.js';
import { definitionAtSeal } from '../seal.js';
import { linkSignals } from '../signals.js';

export interface TimeoutOptions {
  /** Applies to tools without their own `timeoutMs`; without it such tools have no timeout. */
  defaultMs?: number;
}

/**
 * A `tools/execute` wrapper that aborts a body after the tool's `timeoutMs` (or `defaultMs`) and
 * yields `TOOL_TIMEOUT`; a body ignoring its signal is given up after the registry's cancel grace.
 * @example seams.use(plugins.timeout({ defaultMs: 30_000 }));
 */
export function timeout(options: TimeoutOptions = {}): SeamPlugin {
  const { defaultMs } = options;
  if (
    defaultMs !== undefined &&
    !(typeof defaultMs === 'number' && Number.isFinite(defaultMs) && defaultMs > 0)
  ) {
    throw new TypeError(
      `Expected the \`defaultMs\` option of plugins.timeout() to be a positive finite number, got ${describeReceived(defaultMs)}`,
    );
  }
  return {
    name: 'timeout',
    apply: (seams) =>
      seams.on(
        'tools/execute',
        async (exec, next): Promise<ToolResult> => {
          const ms = definitionAtSeal(exec)?.timeoutMs ?? defaultMs;
          if (ms === undefined) return next();
          const timer = new AbortController();
          const handle = setTimeout(() => timer.abort(new Error(ToolMessage.timedOut(exec.name, ms))), ms);
          // The body still stops on the call's own cancel: fuse it with our timer.
          const link = linkSignals(exec.signal, timer.signal);
          try {
            const result = await next({ signal: link.signal });
            if (!timer.signal.aborted) return result;
            const note = result.isError ? result.error.note : undefined;
            return createFailureResult('TOOL_TIMEOUT', ToolMessage.timedOut(exec.name, ms), note);
          } finally {
            clearTimeout(handle);
            link.unlink();
          }
        },
        { name: 'timeout' },
      ),
  };
}
