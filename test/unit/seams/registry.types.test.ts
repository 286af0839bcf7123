import { describe, expectTypeOf, test } from 'vitest';
import type { PostToolDecision, PreToolDecision, ToolResult } from '../../../kernel/index.js';
import {
  type AroundNextOptions,
  createSeams,
  type Listener,
  Seam,
  type SeamSet,
  type ToolExecution,
  type WaterfallOutcome,
} from '../../../seams/index.js';

// These expectations are checked by `tsc`; the runtime bodies only register listeners.
describe('listener typing is exact per seam', () => {
  test('a tools/pre-execute listener gets the execution and a next() that yields a PreToolDecision', () => {
    const seams = createSeams();
    seams.on(Seam.preExecute, (exec, next) => {
      expectTypeOf(exec).toEqualTypeOf<ToolExecution>();
      expectTypeOf(next).returns.toEqualTypeOf<Promise<PreToolDecision>>();
      return next();
    });
  });

  test('a tools/pre-execute listener returning a PostToolDecision does not compile', () => {
    const seams = createSeams();
    const post: PostToolDecision = { kind: 'accept' };
    // @ts-expect-error PostToolDecision is not a PreToolDecision
    seams.on(Seam.preExecute, () => post);
    // @ts-expect-error `block` is a post-execute decision
    seams.on(Seam.preExecute, () => ({ kind: 'block', feedback: [] }));
  });

  test('accept with both content and value does not compile', () => {
    // @ts-expect-error content and value are exclusive
    const both: PostToolDecision = { kind: 'accept', content: [], value: 1 };
    const contentOnly: PostToolDecision = { kind: 'accept', content: [{ type: 'text', text: 'ok' }] };
    const valueOnly: PostToolDecision = { kind: 'accept', value: { n: 1 } };
    expectTypeOf([both, contentOnly, valueOnly]).toEqualTypeOf<PostToolDecision[]>();
  });

  test('tools/execute next() takes an optional { signal } and yields a ToolResult', () => {
    expectTypeOf<Parameters<Parameters<Listener<'tools/execute'>>[1]>>().toEqualTypeOf<
      [options?: AroundNextOptions]
    >();
    expectTypeOf<ReturnType<Parameters<Listener<'tools/execute'>>[1]>>().toEqualTypeOf<Promise<ToolResult>>();
  });

  test('notify listeners observe only, and the registry refuses non-notify seams in notify()', () => {
    const seams = createSeams();
    seams.on(Seam.status, (payload) => {
      expectTypeOf(payload.status).toEqualTypeOf<'idle' | 'running' | 'suspended' | 'disposed' | 'failed'>();
    });
    // @ts-expect-error tools/pre-execute is dispatched through a snapshot, not notify
    expectTypeOf(seams.notify).toBeCallableWith(Seam.preExecute, {});
  });

  test('waterfall outcomes carry the seam decision type', () => {
    expectTypeOf<ReturnType<SeamSet['waterfall']>>().toEqualTypeOf<
      Promise<
        WaterfallOutcome<
          | 'agent/prompt-submit'
          | 'agent/request-error'
          | 'agent/turn-continuation'
          | 'tools/pre-execute'
          | 'tools/post-execute'
        >
      >
    >();
    expectTypeOf<WaterfallOutcome<'tools/pre-execute'>['decision']>().toEqualTypeOf<PreToolDecision>();
  });

  test('guards cannot be prepended', () => {
    const seams = createSeams();
    // @ts-expect-error guards run in registration order only
    seams.guard(() => undefined, { prepend: true });
  });
});
