import { fromCallback } from 'xstate';
import type { ToolCallBlock } from '../../kernel/index.js';
import { parseToolArguments } from '../../tools/index.js';
import type { ToolMachineServices } from '../runtime/index.js';
import { liveHandlesOf } from '../runtime/index.js';

/**
 * The toolBatch machine's own actor: the scope watch (the toolCall logic it steps is provided beside it).
 */
export function createToolBatchActors() {
  return {
    watchScope: fromCallback<
      { type: 'ABORT' },
      { scopeKey: string; callKeyPrefix: string; ownsScope: boolean }
    >(({ input, sendBack, system }) => {
      const handles = liveHandlesOf(system);
      const { scopes, calls } = handles;
      const signal = scopes.get(input.scopeKey).controller.signal;
      const onAbort = (): void => sendBack({ type: 'ABORT' });
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      // Runs when the batch stops, however it stops: no call handle outlives it.
      return () => {
        signal.removeEventListener('abort', onAbort);
        calls.closeAll(input.callKeyPrefix);
        // The scope the batch opened itself goes with it.
        if (input.ownsScope) handles.close(input.scopeKey);
      };
    }),
  };
}

/** A call's concurrency mode, read right before it starts; unknown tools and doubts are exclusive. */
export function classifyCall(
  services: Pick<ToolMachineServices, 'tools'>,
  call: ToolCallBlock,
): 'parallel' | 'exclusive' {
  const tool = services.tools.get(call.name);
  const concurrency = tool?.concurrency;
  if (concurrency === 'parallel') return 'parallel';
  if (typeof concurrency !== 'function') return 'exclusive';
  const args = parseToolArguments(call.arguments);
  if (!args.ok) return 'exclusive';
  try {
    return concurrency(args.value) === true ? 'parallel' : 'exclusive';
  } catch {
    return 'exclusive';
  }
}
