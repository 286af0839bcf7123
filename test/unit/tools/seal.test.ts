import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createToolRegistryCore,
  defineTool,
  parseToolArguments,
  sealExecution,
} from '../../../tools/index.js';

const signal = new AbortController().signal;

describe('sealExecution', () => {
  it('parses raw text: empty → {}, JSON → its value, other text stays the raw string', () => {
    expect(parseToolArguments('')).toEqual({ ok: true, value: {} });
    expect(parseToolArguments('{"a":[1,{"b":null}]}')).toEqual({ ok: true, value: { a: [1, { b: null }] } });
    expect(parseToolArguments('{oops')).toEqual({ ok: true, value: '{oops' });
    expect(parseToolArguments('{"big": 1e999}')).toEqual({
      ok: false,
      message: 'Arguments are not plain JSON: Infinity at "arguments.big"',
    });
  });

  it('keeps a "__proto__" key as data instead of a prototype', () => {
    const parsed = parseToolArguments('{"__proto__": {"polluted": true}}');
    expect(parsed.ok && Object.getPrototypeOf(parsed.value)).toBe(Object.prototype);
    expect(parsed.ok && Object.keys(parsed.value as object)).toEqual(['__proto__']);
  });

  it('seals a detached deep-frozen copy, a fresh token per call, and snapshots finalizeContent', () => {
    const tools = createToolRegistryCore();
    const finalizeContent = (): undefined => undefined;
    const dispose = tools.register(
      defineTool({
        name: 't',
        description: 'd',
        parameters: z.object({}),
        execute: () => null,
        finalizeContent,
      }),
    );
    let reads = 0;
    const args = {
      get once() {
        reads += 1;
        return reads === 1 ? 'first' : 'second';
      },
    };
    const a = sealExecution({ callId: 'c1', name: 't', arguments: args, signal }, tools);
    dispose();
    const b = sealExecution({ callId: 'c2', name: 't', arguments: {}, signal, parent: a.exec.token }, tools);
    expect(a.exec.arguments).toEqual({ once: 'first' });
    expect(reads).toBe(1);
    expect(Object.isFrozen(a.exec) && Object.isFrozen(a.exec.arguments)).toBe(true);
    expect(typeof a.exec.token).toBe('symbol');
    expect(a.exec.token).not.toBe(b.exec.token);
    expect(b.exec.parent).toBe(a.exec.token);
    expect(a.known && a.finalize !== undefined).toBe(true);
    expect(b.known || b.finalize !== undefined).toBe(false);
  });

  it('reports arguments that are not plain JSON and never freezes the caller object', () => {
    const tools = createToolRegistryCore();
    class Point {
      x = 1;
    }
    const mine = { p: new Point(), list: [1, 2] };
    const sealed = sealExecution({ callId: 'c', name: 't', arguments: mine, signal }, tools);
    expect(sealed.argumentsError).toBe('Arguments are not plain JSON: an instance of Point at "arguments.p"');
    expect(Object.isFrozen(mine) || Object.isFrozen(mine.list)).toBe(false);
  });
});
