// tools.md § Defining and running tools: the registry API.

import { createToolRegistry } from 'seamchart';
import { describe, expect, it } from 'vitest';
import { tool } from './pipeline.js';

describe('tools.md § Defining and running tools', () => {
  it('tools.schemas(): lexicographic, with JSON Schema', () => {
    const tools = createToolRegistry();
    tools.register(tool({ name: 'zeta' }));
    tools.register(tool({ name: 'Alpha' }));
    tools.register(tool({ name: 'alpha' }));
    const schemas = tools.schemas();
    expect(schemas.map((s) => s.name)).toEqual(['Alpha', 'alpha', 'zeta']);
    expect(schemas[0]!.parameters).toMatchObject({ type: 'object', properties: { n: { type: 'number' } } });
  });
});
