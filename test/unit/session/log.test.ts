import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { z } from 'zod';
import type { LogEvent } from '../../../kernel/index.js';
import {
  createSessionLog,
  defineLogEvent,
  memoryStore,
  SessionLogError,
  type SessionStore,
} from '../../../session/index.js';
import { logOf, ts, um } from './build.js';

const user = { kind: 'user' } as const;
const openTurn = (log: ReturnType<typeof createSessionLog>, turn = 1) =>
  log.appendCore('turn/start', { turn, trigger: { kind: 'message', source: user } });
/** The error an append throws, for asserting its code and message. */
const refusal = (append: () => unknown): SessionLogError => {
  try {
    append();
  } catch (error) {
    if (error instanceof SessionLogError) return error;
    throw error;
  }
  throw new Error('expected the append to be refused');
};

describe('createSessionLog', () => {
  it('without a clock, stamps the current time: appends in one millisecond share it, a later one moves on', () => {
    vi.useFakeTimers();
    try {
      vi.setSystemTime(new Date('2026-03-04T05:06:07.008Z'));
      const log = createSessionLog();
      const first = openTurn(log);
      const second = log.appendCore('user/message', {
        content: [{ type: 'text', text: 'hi' }],
        source: user,
      });
      vi.setSystemTime(new Date('2026-03-04T05:06:07.011Z'));
      const third = log.appendCore('step/start', { turn: 1, step: 1 });
      expect([first.time, second.time, third.time]).toEqual([
        '2026-03-04T05:06:07.008Z',
        '2026-03-04T05:06:07.008Z',
        '2026-03-04T05:06:07.011Z',
      ]);
      // A clock set back (a second log, another millisecond): the shared cache follows it, it is not stuck ahead.
      vi.setSystemTime(new Date('2026-03-04T05:06:06.000Z'));
      expect(openTurn(createSessionLog()).time).toBe('2026-03-04T05:06:06.000Z');
    } finally {
      vi.useRealTimers();
    }
  });

  it('numbers events from 0 and stamps an ISO time', () => {
    const log = createSessionLog({ now: () => new Date('2025-01-02T03:04:05.000Z') });
    const first = openTurn(log);
    const second = log.appendCore('user/message', { content: [{ type: 'text', text: 'hi' }], source: user });
    expect([first.seq, second.seq]).toEqual([0, 1]);
    expect(second.time).toBe('2025-01-02T03:04:05.000Z');
    expect(log.events).toEqual([first, second]);
  });

  it('keeps the line limit it was built with: maxLineBytes cannot be reassigned', () => {
    const log = createSessionLog();
    const limit = log.maxLineBytes;
    expect(() => {
      (log as { maxLineBytes: number }).maxLineBytes = 10;
    }).toThrow(TypeError);
    expect(log.maxLineBytes).toBe(limit);
    // A line far over 10 bytes is still accepted.
    expect(openTurn(log).seq).toBe(0);
  });

  it('refuses a sparse array in a store’s events, naming the hole', () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is what is tested
    const holey = [1, , 3];
    const event = { seq: 0, type: 'turn/start', time: '2025-01-01T00:00:00.000Z', data: { a: holey } };
    expect(() => memoryStore({ events: [event as never] })).toThrow(
      /`event\.data\.a\[1\]`, got a hole in a sparse array/,
    );
  });

  it('continues seq after the store’s initial events', () => {
    const log = createSessionLog({ store: memoryStore({ events: logOf(ts(1), um()) }) });
    expect(log.appendCore('turn/end', { turn: 1, reason: { kind: 'completed' } }).seq).toBe(2);
  });

  it('deep-freezes the appended event and detaches it from the caller’s object', () => {
    const log = createSessionLog();
    openTurn(log);
    const content = [{ type: 'text' as const, text: 'original' }];
    const event = log.appendCore('user/message', { content, source: user });
    content[0]!.text = 'changed later';
    expect(event.data.content[0]).toEqual({ type: 'text', text: 'original' });
    expect(Object.isFrozen(event)).toBe(true);
    expect(Object.isFrozen(event.data)).toBe(true);
    expect(Object.isFrozen(event.data.content[0])).toBe(true);
  });

  it('refuses data that does not match the type’s schema, recording nothing', () => {
    const log = createSessionLog();
    const error = refusal(() => log.appendCore('turn/start', { turn: 0 } as never));
    expect(error.code).toBe('INVALID_DATA');
    expect(error.message).toMatchInlineSnapshot(`
      "Invalid data for log event \`turn/start\`: ✖ Too small: expected number to be >0
        → at turn
      ✖ Invalid input: expected object, received undefined
        → at trigger"
    `);
    expect(log.events).toEqual([]);
  });

  it('refuses core types on append, saying the machines write them', () => {
    const log = createSessionLog();
    const error = refusal(() => log.append('user/message', { content: [], source: user }));
    expect(error.code).toBe('CORE_TYPE_REFUSED');
    expect(error.message).toMatchInlineSnapshot(
      `"Cannot append \`user/message\`: core event types are written by the machines; define a plugin type with defineLogEvent(type, schema) for your own events"`,
    );
  });

  it('refuses an unregistered plugin type', () => {
    const log = createSessionLog();
    openTurn(log);
    const error = refusal(() => log.append('nobody/registered', {}));
    expect(error.code).toBe('UNKNOWN_TYPE');
    expect(error.message).toMatchInlineSnapshot(
      `"Cannot append \`nobody/registered\`: no log event type of that name is registered; call defineLogEvent(type, schema) first"`,
    );
  });

  it('appends a plugin type registered with defineLogEvent, validated by its schema, inside a turn', () => {
    const note = defineLogEvent('log-test/note', z.object({ text: z.string() }));
    const log = createSessionLog();
    expect(refusal(() => log.append(note.type, { text: 'early' })).code).toBe('NO_OPEN_TURN');
    openTurn(log);
    const event = log.append(note.type, { text: 'hello' });
    expect(note.is(event) && event.data.text).toBe('hello');
    expect(refusal(() => log.append(note.type, { text: 1 })).code).toBe('INVALID_DATA');
  });

  it('calls subscribers synchronously after append, then stops after unsubscribe', () => {
    const log = createSessionLog();
    const seen: number[] = [];
    const unsubscribe = log.subscribe((event) => seen.push(event.seq));
    openTurn(log);
    expect(seen).toEqual([0]);
    unsubscribe();
    log.appendCore('turn/end', { turn: 1, reason: { kind: 'completed' } });
    expect(seen).toEqual([0]);
  });

  it('contains a throwing listener: the append succeeds and other listeners still run', () => {
    const onListenerError = vi.fn();
    const onEvent = vi.fn();
    const log = createSessionLog({ onEvent, onListenerError });
    const after = vi.fn();
    log.subscribe(() => {
      throw new Error('listener broke');
    });
    log.subscribe(after);
    const event = openTurn(log);
    expect(after).toHaveBeenCalledWith(event);
    expect(onEvent).toHaveBeenCalledWith(event);
    expect(onListenerError).toHaveBeenCalledWith(new Error('listener broke'), event);
  });

  it('refuses an append made from a subscriber or from onEvent (REENTRANT_APPEND)', () => {
    const errors: unknown[] = [];
    const log = createSessionLog({
      onEvent: () => {
        errors.push(refusal(() => log.appendCore('turn/end', { turn: 1, reason: { kind: 'completed' } })));
      },
      onListenerError: (error) => errors.push(error),
    });
    log.subscribe(() => {
      errors.push(refusal(() => log.appendCore('turn/end', { turn: 1, reason: { kind: 'completed' } })));
    });
    openTurn(log);
    expect(errors.map((error) => (error as SessionLogError).code)).toEqual([
      'REENTRANT_APPEND',
      'REENTRANT_APPEND',
    ]);
    expect((errors[0] as Error).message).toMatchInlineSnapshot(
      `"Cannot append \`turn/end\` while the listeners of \`turn/start\` (seq 0) are running; append after they return (\`log.afterListeners(...)\`) instead"`,
    );
    expect(log.events.map((event) => event.type)).toEqual(['turn/start']);
    // Once the listeners have returned, appending works again.
    expect(log.appendCore('turn/end', { turn: 1, reason: { kind: 'completed' } }).seq).toBe(1);
  });

  it('runs what a listener hands to afterListeners once the round returned: its append is made then', () => {
    const log = createSessionLog();
    const seen: string[] = [];
    log.subscribe((event) => {
      seen.push(event.type);
      if (event.type === 'turn/start')
        log.afterListeners(() => {
          seen.push('after the round');
          log.appendCore('turn/end', { turn: 1, reason: { kind: 'completed' } });
        });
    });
    openTurn(log);
    expect(seen).toEqual(['turn/start', 'after the round', 'turn/end']);
    expect(log.events.map((event) => event.type)).toEqual(['turn/start', 'turn/end']);
    // With no listener running, it runs at once.
    let ranAtOnce = false;
    log.afterListeners(() => {
      ranAtOnce = true;
    });
    expect(ranAtOnce).toBe(true);
  });

  it('writes each event to the store on append and delegates flush to it', async () => {
    const written: LogEvent[] = [];
    const flush = vi.fn(async () => {});
    const store: SessionStore = { ...memoryStore(), write: (event) => written.push(event), flush };
    const log = createSessionLog({ store });
    const event = openTurn(log);
    expect(written).toEqual([event]);
    await log.flush();
    expect(flush).toHaveBeenCalledOnce();
  });

  it('refuses an append the store cannot write, recording nothing', () => {
    const store: SessionStore = {
      ...memoryStore(),
      write: () => {
        throw new Error('disk full');
      },
    };
    const log = createSessionLog({ store });
    const error = refusal(() => openTurn(log));
    expect(error.code).toBe('STORE_WRITE_FAILED');
    expect(error.cause).toEqual(new Error('disk full'));
    expect(log.events).toEqual([]);
  });
});

describe('defineLogEvent', () => {
  it('returns the same descriptor for the same schema and refuses another schema for the type', () => {
    const schema = z.object({ n: z.number() });
    const first = defineLogEvent('log-test/counter', schema);
    expect(defineLogEvent('log-test/counter', schema)).toBe(first);
    expect(() =>
      defineLogEvent('log-test/counter', z.object({ n: z.string() })),
    ).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Log event \`log-test/counter\` is already defined with another schema; define it once and import the descriptor]`,
    );
  });

  it('refuses core event types', () => {
    expect(() => defineLogEvent('tool/call', z.object({}))).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Cannot define log event \`tool/call\`: it is a core event type, written only by the machines]`,
    );
  });

  it('types the data of events it narrows', () => {
    const counter = defineLogEvent('log-test/typed', z.object({ n: z.number() }));
    const event: LogEvent = { seq: 0, type: 'log-test/typed', data: { n: 1 }, time: '' };
    expect(counter.is(event)).toBe(true);
    if (counter.is(event)) expectTypeOf(event.data).toEqualTypeOf<{ n: number }>();
  });
});
