import { describe, expect, it } from 'vitest';
import type { ModelDelta, StreamedDelta } from '../../../kernel/index.js';
import { createDeltaRelay } from '../../../model/deltaRelay.js';

const text = (value: string): ModelDelta => ({ kind: 'text', text: value });

/** A signal that counts the abort listeners added to it and still attached. */
function countingSignal() {
  const controller = new AbortController();
  const { signal } = controller;
  let attached = 0;
  let added = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((type: string, listener: () => void, options?: { once?: boolean }) => {
    added++;
    attached++;
    add(type, listener, options);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((type: string, listener: () => void) => {
    attached--;
    remove(type, listener);
  }) as typeof signal.removeEventListener;
  return { controller, signal, counts: () => ({ added, attached }) };
}

describe('createDeltaRelay', () => {
  it('a request that streams nothing adds no abort listener, and a delta after its abort is dropped', () => {
    const { controller, signal, counts } = countingSignal();
    const emitted: StreamedDelta[] = [];
    const relay = createDeltaRelay((delta) => emitted.push(delta), signal);
    controller.abort();
    relay.onDelta(text('late'));
    relay.settle(true);
    expect(emitted).toEqual([]);
    expect(counts()).toEqual({ added: 0, attached: 0 });
  });

  it('after the first delta an abort takes back what streamed at once, and the listener is gone', () => {
    const { controller, signal, counts } = countingSignal();
    const emitted: StreamedDelta[] = [];
    const relay = createDeltaRelay((delta) => emitted.push(delta), signal);
    relay.onDelta(text('a'));
    relay.onDelta(text('b'));
    expect(counts()).toEqual({ added: 1, attached: 1 });
    controller.abort();
    relay.onDelta(text('c'));
    relay.settle(true);
    expect(emitted).toEqual([text('a'), text('b'), { kind: 'discard' }]);
    expect(counts().added).toBe(1);
  });

  it('a settled request removes its listener and drops later deltas; success sends no discard', () => {
    const { signal, counts } = countingSignal();
    const emitted: StreamedDelta[] = [];
    const relay = createDeltaRelay((delta) => emitted.push(delta), signal);
    relay.onDelta(text('a'));
    relay.settle(false);
    relay.onDelta(text('b'));
    expect(emitted).toEqual([text('a')]);
    expect(counts()).toEqual({ added: 1, attached: 0 });
  });

  it('a failed request that streamed sends one discard', () => {
    const { signal } = countingSignal();
    const emitted: StreamedDelta[] = [];
    const relay = createDeltaRelay((delta) => emitted.push(delta), signal);
    relay.onDelta(text('a'));
    relay.settle(true);
    relay.settle(true);
    expect(emitted).toEqual([text('a'), { kind: 'discard' }]);
  });
});
