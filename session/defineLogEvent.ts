import type { z } from 'zod';
import type { LogEvent } from '../kernel/index.js';
import { coreEventSchemas, describeReceived } from '../kernel/index.js';

/** A plugin log event type registered with `defineLogEvent`. */
export interface LogEventDefinition<TType extends string = string, TData = unknown> {
  readonly type: TType;
  readonly schema: z.ZodType<TData>;
  /** Narrows a log event to this type (e.g. inside `log.subscribe`). */
  is(event: LogEvent): event is LogEvent<TType, TData>;
}

// Process-wide on purpose: a file written by one agent must load with the same schemas in another.
const registry = new Map<string, LogEventDefinition>();

/**
 * Registers a plugin (log-only, never model-visible) event type and its `data` schema.
 * Defining the same type again with the same schema returns the same descriptor; another schema throws.
 * @param type the event type, e.g. `'hook/invoked'`; core types are refused
 * @param schema zod schema of the event's `data` (plain JSON)
 * @example
 * const todoWrite = defineLogEvent('todo/write', z.object({ items: z.array(z.string()) }));
 * agent.log.append(todoWrite.type, { items: ['a'] });
 */
export function defineLogEvent<TType extends string, TSchema extends z.ZodType>(
  type: TType,
  schema: TSchema,
): LogEventDefinition<TType, z.output<TSchema>> {
  if (typeof type !== 'string' || type.length === 0) {
    throw new TypeError(
      `Expected the log event \`type\` to be a non-empty string, got ${describeReceived(type)}`,
    );
  }
  if (Object.hasOwn(coreEventSchemas, type)) {
    throw new TypeError(
      `Cannot define log event \`${type}\`: it is a core event type, written only by the machines`,
    );
  }
  if (
    schema === null ||
    typeof schema !== 'object' ||
    typeof (schema as { safeParse?: unknown }).safeParse !== 'function'
  ) {
    throw new TypeError(
      `Expected the schema of log event \`${type}\` to be a zod schema, got ${describeReceived(schema)}`,
    );
  }
  const existing = registry.get(type);
  if (existing !== undefined) {
    if (existing.schema === schema) return existing as LogEventDefinition<TType, z.output<TSchema>>;
    throw new TypeError(
      `Log event \`${type}\` is already defined with another schema; define it once and import the descriptor`,
    );
  }
  const definition: LogEventDefinition<TType, z.output<TSchema>> = Object.freeze({
    type,
    schema: schema as z.ZodType<z.output<TSchema>>,
    is: (event: LogEvent): event is LogEvent<TType, z.output<TSchema>> => event.type === type,
  });
  registry.set(type, definition as LogEventDefinition);
  return definition;
}

/** The registered definition of a plugin event type, if any. */
export function getLogEventDefinition(type: string): LogEventDefinition | undefined {
  return registry.get(type);
}
