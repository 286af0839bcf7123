import { describe, expect, it } from 'vitest';
import { defineTool } from '../../../tools/index.js';

// What `z.object({})` from zod 3 and from a second zod 4 copy look like to this package's zod.
const zod3Schema = { _def: { typeName: 'ZodObject' }, safeParse: () => ({ success: true }) };
const otherZod4Schema = { _zod: { def: { type: 'object' } }, safeParse: () => ({ success: true }) };

describe('zod is a peer dependency', () => {
  it('a zod 3 schema is refused with the version seamchart needs', () => {
    expect(() =>
      defineTool({ name: 't', description: 't', parameters: zod3Schema as never, execute: () => 'ok' }),
    ).toThrow(/got a zod 3 schema: seamchart needs zod 4 \(`npm install zod@\^4`\)/);
  });

  it('a schema from a second copy of zod says so', () => {
    expect(() =>
      defineTool({ name: 't', description: 't', parameters: otherZod4Schema as never, execute: () => 'ok' }),
    ).toThrow(/another copy of zod/);
  });
});
