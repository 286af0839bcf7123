import { z } from 'zod';
import type { HookContext } from '../../../kernel/index.js';
import { createToolRegistry } from '../../../machines/toolCall/createToolRegistry.js';
import { createSeams } from '../../../seams/index.js';
import type { SeamLogger, Seams } from '../../../seams/types.js';
import { defineTool } from '../../../tools/index.js';
import type { ToolRegistry } from '../../../tools/types.js';

/** A promise with its resolve/reject exposed. */
export function deferred<T = void>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (e: unknown) => void;
} {
  let resolve!: (value: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export function textContext(text: string, meta?: HookContext['meta']): HookContext {
  return {
    content: [{ type: 'text', text }],
    source: { kind: 'plugin', plugin: 'test' },
    ...(meta === undefined ? {} : { meta }),
  };
}

/** A logger that records contained failures instead of printing them. */
export function createRecordingLogger(): SeamLogger & { errors: string[] } {
  const errors: string[] = [];
  return { errors, error: (message) => errors.push(message), warn: (message) => errors.push(message) };
}

export const echoTool = defineTool({
  name: 'echo',
  description: 'Echo the text',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

/** A fresh registry with `echo`, and fresh seams with a recording logger. */
export function createFixture(): {
  tools: ToolRegistry;
  seams: Seams;
  logger: ReturnType<typeof createRecordingLogger>;
} {
  const logger = createRecordingLogger();
  const seams = createSeams({ logger });
  const tools = createToolRegistry();
  tools.register(echoTool);
  return { tools, seams, logger };
}
