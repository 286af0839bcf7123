import { describe, expect, it } from 'vitest';
import { createRequestDeriver, deriveMessages } from '../../../model/index.js';
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

  it('reuses the previous messages: earlier message objects are === and the arrays are frozen', () => {
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
    expect(Object.isFrozen(second)).toBe(true);
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
});
