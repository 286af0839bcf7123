import { describe, expect, it } from 'vitest';
import { parseScript, type ScriptStep, ScriptStepSchema, scriptedModel } from '../../../model/index.js';

describe('parseScript', () => {
  it('accepts every documented step shape loaded from JSON', () => {
    const raw: unknown = JSON.parse(`[
      { "text": "hello" },
      { "text": "calling", "toolCalls": [{ "id": "c1", "name": "echo", "arguments": { "text": "a" } }] },
      { "toolCalls": [{ "id": "c2", "name": "echo", "arguments": "{\\"text\\":\\"b\\"}" }] },
      { "text": "partial", "finish": "max-tokens" },
      { "error": { "message": "overloaded", "code": "RATE_LIMIT" } },
      { "hang": true },
      { "delayMs": 50, "text": "late", "reasoning": "hmm", "usage": { "inputTokens": 1 } }
    ]`);

    const steps: ScriptStep[] = parseScript(raw);

    expect(steps).toEqual(raw);
    expect(steps.every((step) => ScriptStepSchema.safeParse(step).success)).toBe(true);
  });

  it('throws a TypeError when the script is not an array', () => {
    expect(() => parseScript({ text: 'hello' })).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the model script to be an array of steps, got \`{"text":"hello"}\` (object)]`,
    );
  });
});

describe('scriptedModel with a bad script', () => {
  it('names the step index and the path of a wrongly typed field', () => {
    expect(() =>
      scriptedModel([{ text: 'ok' }, { toolCalls: [{ id: 'c1', name: 42, arguments: {} }] } as never]),
    ).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Invalid model script step 1: at \`toolCalls[0].name\`: Invalid input: expected string, received number]`,
    );
  });

  it('names an unknown key, such as a misspelt toolCalls', () => {
    expect(() => scriptedModel([{ text: 'a', toolcalls: [] } as never])).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Invalid model script step 0: Unrecognized key: "toolcalls"]`,
    );
  });

  it('rejects a reply step with neither text nor toolCalls', () => {
    expect(() => scriptedModel([{ delayMs: 5 } as never])).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Invalid model script step 0: Expected a reply step to have \`text\` or \`toolCalls\` (or use \`error\` or \`hang\`)]`,
    );
  });

  it('names what is wrong with an error step rather than a bare union failure', () => {
    expect(() => scriptedModel([{ error: { code: 'X' } } as never])).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Invalid model script step 0: at \`error.message\`: Invalid input: expected string, received undefined]`,
    );
  });

  it('rejects a hang step that is not `hang: true`', () => {
    expect(() => scriptedModel([{ hang: false } as never])).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Invalid model script step 0: at \`hang\`: Invalid input: expected true]`,
    );
  });

  it('rejects a negative delay', () => {
    expect(() => scriptedModel([{ text: 'a', delayMs: -1 }])).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Invalid model script step 0: at \`delayMs\`: Too small: expected number to be >=0]`,
    );
  });
});
