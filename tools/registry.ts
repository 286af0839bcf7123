import { z } from 'zod';
import type { ToolSchema } from '../kernel/index.js';
import { describeReceived } from '../kernel/index.js';
import type { Disposer } from '../seams/index.js';
import { createDisposer } from '../seams/index.js';
import { isToolDefinition } from './defineTool.js';
import { deepFreezeJson } from './json.js';
import type { ToolDefinition, ToolRegistryCore } from './types.js';

// JSON Schemas are derived once per definition: definitions are frozen, so the schema cannot change.
const schemaCache = new WeakMap<ToolDefinition, ToolSchema>();

/**
 * Creates the registry the machines resolve tools from: registration, lookup and the model-facing
 * schemas. `createToolRegistry()` (machines/) adds standalone `execute`.
 * @example
 * const tools = createToolRegistryCore();
 * const dispose = tools.register(echo);
 * tools.schemas(); // [{ name: 'echo', description: '…', parameters: { type: 'object', … } }]
 */
export function createToolRegistryCore(): ToolRegistryCore {
  const tools = new Map<string, ToolDefinition>();
  return {
    register(tool: ToolDefinition): Disposer {
      if (!isToolDefinition(tool)) {
        throw new TypeError(
          `Expected tools.register() to receive a tool made by defineTool(), got ${describeReceived(tool)}`,
        );
      }
      if (tools.has(tool.name)) {
        throw new TypeError(
          `A tool named "${tool.name}" is already registered; dispose the earlier registration before registering another`,
        );
      }
      tools.set(tool.name, tool);
      // Only remove our own registration: a later tool may have taken the name after a dispose.
      return createDisposer(() => {
        if (tools.get(tool.name) === tool) tools.delete(tool.name);
      });
    },
    get: (name) => tools.get(name),
    names: () => [...tools.keys()].sort(compareNames),
    schemas: () => [...tools.keys()].sort(compareNames).map((name) => describeTool(tools.get(name)!)),
  };
}

/** What the model sees of one tool: name, description and the JSON Schema of its parameters. */
export function describeTool(tool: ToolDefinition): ToolSchema {
  const cached = schemaCache.get(tool);
  if (cached) return cached;
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(tool.parameters) as Record<string, unknown>;
  const schema = deepFreezeJson({ name: tool.name, description: tool.description, parameters });
  schemaCache.set(tool, schema);
  return schema;
}

// Code-unit order, not locale order: the same on every machine.
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
