import { z } from 'zod';
import type { JsonValue } from '../kernel/index.js';
import { describeReceived, describeThrown } from '../kernel/index.js';
import { type ToolDefinition, type ToolDefinitionInput, type ToolKind, toolBrand } from './types.js';

const toolKinds: readonly ToolKind[] = [
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'think',
  'fetch',
  'switch_mode',
  'other',
];

// The name rule of the OpenAI and Anthropic function-calling APIs.
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Validates a tool definition and returns it frozen; a bad option throws a `TypeError` naming it.
 * @param rawTool the definition: name, description, zod `parameters`, `execute` and options.
 * @example
 * const echo = defineTool({
 *   name: 'echo', description: 'Echo the text', parameters: z.object({ text: z.string() }),
 *   execute: ({ text }) => text, concurrency: 'parallel',
 * });
 */
export function defineTool<TArgs, TValue extends JsonValue = JsonValue>(
  rawTool: ToolDefinitionInput<TArgs, TValue>,
): ToolDefinition<TArgs, TValue> {
  if (rawTool === null || typeof rawTool !== 'object') {
    throw new TypeError(
      `Expected defineTool() to receive a definition object, got ${describeReceived(rawTool)}`,
    );
  }
  const tool = rawTool as unknown as Record<string, unknown>;
  check(tool, 'name', (v) => typeof v === 'string' && TOOL_NAME.test(v), '1-64 letters, digits, `_` or `-`');
  const name = tool.name;
  check(tool, 'description', (v) => typeof v === 'string', 'a string', 'description', name);
  checkParameters(tool.parameters, name);
  check(tool, 'execute', (v) => typeof v === 'function', 'a function', 'execute', name);
  checkOptional(
    tool,
    'finalizeContent',
    (v) => typeof v === 'function',
    'a function',
    'finalizeContent',
    name,
  );
  checkOptional(
    tool,
    'concurrency',
    (v) => v === 'exclusive' || v === 'parallel' || typeof v === 'function',
    "'exclusive', 'parallel' or a function of the arguments",
    'concurrency',
    name,
  );
  checkOptional(
    tool,
    'timeoutMs',
    (v) => typeof v === 'number' && Number.isFinite(v) && v > 0,
    'a positive finite number of milliseconds',
    'timeoutMs',
    name,
  );
  checkOptional(
    tool,
    'output',
    (v) => v !== null && typeof v === 'object',
    'an object `{ schema?, render? }`',
    'output',
    name,
  );
  checkOptional(
    tool,
    'kind',
    (v) => toolKinds.includes(v as ToolKind),
    `one of ${toolKinds.join(', ')}`,
    'kind',
    name,
  );
  checkOptional(
    tool,
    'maxContentBytes',
    (v) => typeof v === 'number' && Number.isSafeInteger(v) && v > 0,
    'a positive whole number of bytes',
    'maxContentBytes',
    name,
  );
  const output = tool.output as Record<string, unknown> | undefined;
  if (output) {
    checkOptional(output, 'schema', isZodSchema, 'a zod schema', 'output.schema', name);
    checkOptional(output, 'render', (v) => typeof v === 'function', 'a function', 'output.render', name);
  }
  return Object.freeze({
    ...rawTool,
    ...(output ? { output: Object.freeze({ ...output }) } : {}),
    [toolBrand]: true,
  }) as ToolDefinition<TArgs, TValue>;
}

/** Whether a value was made by `defineTool` (the registry refuses anything else). */
export function isToolDefinition(value: unknown): value is ToolDefinition {
  return (
    value !== null && typeof value === 'object' && (value as { [toolBrand]?: unknown })[toolBrand] === true
  );
}

function isZodSchema(value: unknown): value is z.ZodType {
  return value instanceof z.ZodType;
}

/** A schema made by another zod than seamchart's (zod is a peer dependency: zod 4, one copy). */
function foreignZod(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || isZodSchema(value)) return undefined;
  const record = value as { _def?: unknown; _zod?: unknown };
  if (record._zod !== undefined)
    return 'a zod schema from another copy of zod (seamchart uses the zod your project installs: `npm ls zod` should show one zod 4)';
  if (record._def !== undefined && typeof (record as { safeParse?: unknown }).safeParse === 'function')
    return 'a zod 3 schema: seamchart needs zod 4 (`npm install zod@^4`)';
  return undefined;
}

// The model APIs want an object at the top of a tool's parameter schema, in JSON Schema.
function checkParameters(value: unknown, toolName: unknown): void {
  let received: string | undefined;
  const foreign = foreignZod(value);
  if (foreign !== undefined) received = foreign;
  else if (!isZodSchema(value)) received = describeReceived(value);
  else {
    try {
      const type = (z.toJSONSchema(value) as { type?: unknown }).type;
      if (type !== 'object')
        received = `a zod schema of JSON Schema type ${JSON.stringify(type ?? 'unknown')}`;
    } catch (error) {
      received = `a zod schema with no JSON Schema (${describeThrown(error)})`;
    }
  }
  if (received === undefined) return;
  const owner = typeof toolName === 'string' ? ` of tool "${toolName}"` : '';
  throw new TypeError(
    `Expected the \`parameters\` option${owner} to be a zod object schema like \`z.object({ path: z.string() })\`, got ${received}`,
  );
}

function check(
  source: Record<string, unknown>,
  key: string,
  test: (value: unknown) => boolean,
  expected: string,
  label = key,
  toolName?: unknown,
): void {
  const value = source[key];
  if (test(value)) return;
  const owner = typeof toolName === 'string' ? ` of tool "${toolName}"` : '';
  throw new TypeError(
    `Expected the \`${label}\` option${owner} to be ${expected}, got ${describeReceived(value)}`,
  );
}

function checkOptional(
  source: Record<string, unknown>,
  key: string,
  test: (value: unknown) => boolean,
  expected: string,
  label = key,
  toolName?: unknown,
): void {
  if (source[key] !== undefined) check(source, key, test, expected, label, toolName);
}
