import type { z } from 'zod';
import { type CoreEventType, coreEventSchemas } from '../kernel/index.js';
import { getLogEventDefinition } from './defineLogEvent.js';

/** Which kind of event type a name is. */
export type EventTypeKind =
  | { readonly kind: 'core'; readonly schema: z.ZodType }
  | { readonly kind: 'plugin'; readonly schema: z.ZodType }
  | { readonly kind: 'unknown' };

/** Whether `type` is one of the core event types written by the machines. */
export function isCoreEventType(type: string): type is CoreEventType {
  return Object.hasOwn(coreEventSchemas, type);
}

/** Looks up the schema that validates `data` of an event type. */
export function resolveEventType(type: string): EventTypeKind {
  if (isCoreEventType(type)) return { kind: 'core', schema: coreEventSchemas[type] };
  const definition = getLogEventDefinition(type);
  return definition === undefined ? { kind: 'unknown' } : { kind: 'plugin', schema: definition.schema };
}
