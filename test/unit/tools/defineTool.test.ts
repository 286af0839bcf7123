import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolRegistryCore, defineTool, isToolDefinition } from '../../../tools/index.js';
import { echoTool } from './fixtures.js';

const base = { name: 'ok', description: 'd', parameters: z.object({}), execute: () => null };

describe('defineTool', () => {
  it('returns a frozen definition', () => {
    const tool = defineTool(base);
    expect(Object.isFrozen(tool)).toBe(true);
    expect(tool.kind).toBeUndefined();
    expect(isToolDefinition(tool)).toBe(true);
    expect(isToolDefinition({ ...base })).toBe(false);
  });

  it('keeps an ACP tool kind and refuses an unknown one', () => {
    expect(defineTool({ ...base, kind: 'execute' }).kind).toBe('execute');
    expect(() => defineTool({ ...base, kind: 'shell' } as never)).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the \`kind\` option of tool "ok" to be one of read, edit, delete, move, search, execute, think, fetch, switch_mode, other, got \`"shell"\` (string)]`,
    );
  });

  it('a bad option throws a TypeError naming the option, what was expected and what was received', () => {
    const messages = [
      { ...base, name: 'has space' },
      { ...base, parameters: z.string() },
      { ...base, parameters: { type: 'object' } },
      { ...base, concurrency: 'sometimes' },
      { ...base, timeoutMs: 0 },
      { ...base, execute: 'run' },
      { ...base, output: { schema: 'number' } },
    ].map((raw) => {
      try {
        defineTool(raw as never);
        return 'no error';
      } catch (error) {
        return `${(error as Error).name}: ${(error as Error).message}`;
      }
    });
    expect(messages).toMatchInlineSnapshot(`
      [
        "TypeError: Expected the \`name\` option to be 1-64 letters, digits, \`_\` or \`-\`, got \`"has space"\` (string)",
        "TypeError: Expected the \`parameters\` option of tool "ok" to be a zod object schema like \`z.object({ path: z.string() })\`, got a zod schema of JSON Schema type "string"",
        "TypeError: Expected the \`parameters\` option of tool "ok" to be a zod object schema like \`z.object({ path: z.string() })\`, got \`{"type":"object"}\` (object)",
        "TypeError: Expected the \`concurrency\` option of tool "ok" to be 'exclusive', 'parallel' or a function of the arguments, got \`"sometimes"\` (string)",
        "TypeError: Expected the \`timeoutMs\` option of tool "ok" to be a positive finite number of milliseconds, got \`0\` (number)",
        "TypeError: Expected the \`execute\` option of tool "ok" to be a function, got \`"run"\` (string)",
        "TypeError: Expected the \`output.schema\` option of tool "ok" to be a zod schema, got \`"number"\` (string)",
      ]
    `);
  });
});

describe('createToolRegistryCore', () => {
  it('register returns a disposer; a duplicate name is a TypeError', () => {
    const tools = createToolRegistryCore();
    const dispose = tools.register(echoTool);
    expect(() => tools.register(echoTool)).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: A tool named "echo" is already registered; dispose the earlier registration before registering another]`,
    );
    dispose();
    expect(tools.get('echo')).toBeUndefined();
    tools.register(echoTool);
    expect(tools.names()).toEqual(['echo']);
  });

  it('refuses a definition that did not come from defineTool', () => {
    const tools = createToolRegistryCore();
    expect(() => tools.register({ ...base } as never)).toThrow(/made by defineTool\(\)/);
  });

  it('schemas() lists name, description and JSON Schema in lexicographic tool order', () => {
    const tools = createToolRegistryCore();
    tools.register(
      defineTool({ ...base, name: 'b_tool', parameters: z.object({ z: z.string(), a: z.number() }) }),
    );
    tools.register(defineTool({ ...base, name: 'B_upper' }));
    tools.register(defineTool({ ...base, name: 'a_tool' }));
    const schemas = tools.schemas();
    expect(schemas.map((schema) => schema.name)).toEqual(['B_upper', 'a_tool', 'b_tool']);
    expect(schemas[2]).toMatchInlineSnapshot(`
      {
        "description": "d",
        "name": "b_tool",
        "parameters": {
          "additionalProperties": false,
          "properties": {
            "a": {
              "type": "number",
            },
            "z": {
              "type": "string",
            },
          },
          "required": [
            "z",
            "a",
          ],
          "type": "object",
        },
      }
    `);
    expect(JSON.stringify(tools.schemas())).toBe(JSON.stringify(schemas));
    expect(Object.keys(schemas[2]!.parameters)).toEqual([
      'type',
      'properties',
      'required',
      'additionalProperties',
    ]);
  });
});
