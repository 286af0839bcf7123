import { z } from 'zod';
import {
  type ContentBlock,
  ContentBlockSchema,
  describeReceived,
  type HookContext,
  HookContextSchema,
  type JsonValue,
  JsonValueSchema,
  type MessageSource,
  MessageSourceSchema,
} from '../../kernel/index.js';
import { deepFreezeJson, formatJsonFailure, snapshotJson } from '../../tools/index.js';

/** One accepted followup/queue/steer item: plain, frozen JSON that travels through machine context. */
export interface InboxItem {
  readonly id: string;
  readonly content: readonly ContentBlock[];
  readonly source: MessageSource;
  readonly contexts: readonly HookContext[];
  readonly meta?: JsonValue;
  /** `false` for `queue()`: the item waits until a waking item sits at or behind it. */
  readonly wakeup: boolean;
  /** The listener or hook whose continuation put it here (what its `steering/message` names). */
  readonly decidedBy?: string;
}

/** One `inject()` call: a model-facing context recorded as its own `context/message`. */
export type Injection = HookContext;

/** The `{ id, steering }` entries of `agent/inbox/discard`. */
export interface DiscardEntry {
  readonly id: string;
  readonly steering: boolean;
}

const USER_SOURCE: MessageSource = Object.freeze({ kind: 'user' });
const NO_CONTEXTS: readonly HookContext[] = Object.freeze([]);

const ContentInputSchema = z.union([z.string(), z.array(ContentBlockSchema)]);
const DeliveryOptionsSchema = z
  .object({
    source: MessageSourceSchema.optional(),
    contexts: z.array(HookContextSchema).optional(),
    meta: JsonValueSchema.optional(),
  })
  .strict();
const NO_OPTIONS: z.infer<typeof DeliveryOptionsSchema> = Object.freeze({});
const InjectOptionsSchema = z
  .object({ source: MessageSourceSchema.optional(), meta: JsonValueSchema.optional() })
  .strict();

/** Turns the `string | ContentBlock[]` of a delivery method into content blocks. */
export function toContentBlocks(content: string | readonly ContentBlock[]): ContentBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : [...content];
}

/** Deep-copies and freezes a JSON value so later mutation by the caller cannot reach the machines. */
export function freezeJson<T>(value: T): T {
  return deepFreezeJson(structuredClone(value));
}

function validate<T>(schema: z.ZodType<T>, raw: unknown, what: string, method: string, root = 'options'): T {
  // Non-JSON input (bigint, cycles, class instances) is named here, before zod recurses into a cycle.
  const snapshot = snapshotJson(raw, root);
  if (!snapshot.ok)
    throw new TypeError(
      `agent.${method}(): expected ${what} to be plain JSON, got ${formatJsonFailure(snapshot)}`,
    );
  const parsed = schema.safeParse(snapshot.value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
  throw new TypeError(
    `agent.${method}(): expected ${what}${at}: ${issue?.message ?? 'invalid'}, got ${describeReceived(raw)}`,
  );
}

/**
 * Validates and snapshots the arguments of `followup`/`queue`/`steer` into an inbox item.
 * @param method the delivery method, named in error messages.
 */
export function createInboxItem(
  id: string,
  rawContent: unknown,
  rawOptions: unknown,
  method: string,
  wakeup: boolean,
): InboxItem {
  // The common call, `followup('text')`: a string is valid content and no options means the defaults,
  // so there is nothing to validate or copy.
  const simple = typeof rawContent === 'string' && rawOptions === undefined;
  const content = simple
    ? rawContent
    : validate(ContentInputSchema, rawContent, 'a string or ContentBlock[] content', method, 'content');
  const options = simple
    ? NO_OPTIONS
    : validate(DeliveryOptionsSchema, rawOptions ?? {}, 'options { source?, contexts?, meta? }', method);
  // `validate` returned detached copies (snapshotJson, then zod's parse): freezing them is enough.
  return deepFreezeJson({
    id,
    content: toContentBlocks(content),
    source: options.source ?? USER_SOURCE,
    contexts: options.contexts ?? NO_CONTEXTS,
    ...(options.meta === undefined ? {} : { meta: options.meta }),
    wakeup,
  });
}

/** Validates and snapshots the arguments of `inject` (default source `{ kind: 'plugin', plugin: '' }`). */
export function createInjection(rawContent: unknown, rawOptions: unknown): Injection {
  const content = validate(
    ContentInputSchema,
    rawContent,
    'a string or ContentBlock[] content',
    'inject',
    'content',
  );
  const options = validate(InjectOptionsSchema, rawOptions ?? {}, 'options { source?, meta? }', 'inject');
  return deepFreezeJson({
    content: toContentBlocks(content),
    source: options.source ?? { kind: 'plugin', plugin: '' },
    ...(options.meta === undefined ? {} : { meta: options.meta }),
  });
}
