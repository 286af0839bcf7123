import { describe, expect, it } from 'vitest';
import type { LogEvent } from '../../../kernel/index.js';
import { createRequestDeriver, deriveMessages, type ModelMessage } from '../../../model/index.js';
import { createSessionLog } from '../../../session/index.js';
import { am, cm, logOf, pb, pluginEvent, se, sm, ss, tc, te, tr, ts, um } from '../session/build.js';

describe('model request derivation', () => {
  it('maps prompts, contexts and steering to user, answers to assistant, results to tool; leaves out the rest', () => {
    const log = logOf(
      ts(1),
      pb('policy', 'secret'),
      te(1, { kind: 'rejected', reason: 'policy' }),
      ts(2),
      um('go'),
      cm('reminder'),
      ss(2, 1),
      am(2, 1, ['c1'], 'calling'),
      tc(2, 1, 'c1'),
      pluginEvent(),
      tr(2, 1, 'c1'),
      sm(2, 'also this'),
      se(2, 1),
      te(2),
    );
    expect(deriveMessages(log)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'user', content: [{ type: 'text', text: 'reminder' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'calling' },
          { type: 'tool-call', id: 'c1', name: 'echo', arguments: '{"id":"c1"}' },
        ],
      },
      { role: 'tool', callId: 'c1', content: [{ type: 'text', text: 'result c1' }], isError: false },
      { role: 'user', content: [{ type: 'text', text: 'also this' }] },
    ]);
  });

  it('reuses the previous messages: earlier message objects are ===, results are read-only snapshots', () => {
    const log = createSessionLog();
    const deriver = createRequestDeriver();
    log.appendCore('turn/start', { turn: 1, trigger: { kind: 'message', source: { kind: 'user' } } });
    log.appendCore('user/message', { content: [{ type: 'text', text: 'one' }], source: { kind: 'user' } });
    const first = deriver.derive(log.events);
    log.appendCore('context/message', { content: [{ type: 'text', text: 'two' }], source: { kind: 'user' } });
    const second = deriver.derive(log.events);

    expect(first).toHaveLength(1);
    expect(second).toHaveLength(2);
    expect(second[0]).toBe(first[0]);
    // A snapshot: the earlier result still shows only what it showed, and nobody can write into either.
    expect(first).toEqual([{ role: 'user', content: [{ type: 'text', text: 'one' }] }]);
    expect(first[1]).toBeUndefined();
    expect(Object.keys(first)).toEqual(['0']);
    expect(() => {
      (second as ModelMessage[]).push(second[0]!);
    }).toThrow(TypeError);
    expect(() => {
      (first as ModelMessage[])[1] = second[1]!;
    }).toThrow(TypeError);
    expect(second).toHaveLength(2);
    expect(Object.isFrozen(second[1])).toBe(true);
    // The message shares the log's frozen content instead of copying it.
    expect(second[1]?.content).toBe((log.events[2]!.data as { content: unknown }).content);
  });

  it('returns the same array when nothing model-visible was appended', () => {
    const deriver = createRequestDeriver();
    const events = logOf(ts(1), um('a'), ss(1, 1));
    const first = deriver.derive(events.slice(0, 2));
    expect(deriver.derive(events)).toBe(first);
  });

  it('processes only events appended since the previous call', () => {
    const events = logOf(ts(1), um('a'), ss(1, 1), am(1, 1), se(1, 1), te(1));
    let reads = 0;
    // Count index reads: a non-incremental deriver would read the whole log again.
    const counting = new Proxy(events, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const deriver = createRequestDeriver();
    deriver.derive(counting.slice(0, 4));
    reads = 0;
    deriver.derive(counting);
    expect(reads).toBeLessThanOrEqual(4);
  });

  it('derives afresh when given a log that does not extend the previous one', () => {
    const deriver = createRequestDeriver();
    deriver.derive(logOf(ts(1), um('first log')));
    expect(deriver.derive(logOf(ts(1), um('other log'), ss(1, 1)))).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'other log' }] },
    ]);
  });

  it('F02 at turn 10,000 a request touches only the new events and copies none of the earlier messages', () => {
    const turns = Array.from({ length: 10_000 }, (_, i) => [
      ts(i + 1),
      um(`q${i}`),
      ss(i + 1, 1),
      am(i + 1, 1),
      se(i + 1, 1),
      te(i + 1),
    ]);
    const history = logOf(...turns.flat(), ts(10_001), um('the new prompt'));
    const deriver = createRequestDeriver();
    const atTurn10k = deriver.derive(history.slice(0, -1));
    expect(atTurn10k).toHaveLength(20_000);

    const reads = countingReads(history);
    const next = deriver.derive(reads.events);
    // A constant handful: the event before (is this the same log?), the single new event, the new last one.
    expect(reads.count()).toBeLessThanOrEqual(3);
    expect(next).toHaveLength(20_001);
    expect(next[20_000]).toEqual({ role: 'user', content: [{ type: 'text', text: 'the new prompt' }] });
    // The earlier messages are the same objects, and the earlier request did not grow.
    expect(next[0]).toBe(atTurn10k[0]);
    expect(next[19_999]).toBe(atTurn10k[19_999]);
    expect(atTurn10k).toHaveLength(20_000);
    expect(atTurn10k[20_000]).toBeUndefined();

    // The same count at turn 1: the cost of one more event does not depend on the history before it.
    const short = logOf(ts(1), um('first'));
    const fresh = createRequestDeriver();
    fresh.derive(short.slice(0, -1));
    const shortReads = countingReads(short);
    fresh.derive(shortReads.events);
    expect(shortReads.count()).toBe(reads.count());
  });
});

/** The log behind a proxy that counts index reads, the work a deriver does on it. */
function countingReads(events: readonly LogEvent[]): { events: readonly LogEvent[]; count: () => number } {
  let reads = 0;
  const counting = new Proxy(events, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { events: counting, count: () => reads };
}
