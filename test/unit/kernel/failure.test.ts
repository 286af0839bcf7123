import { describe, expect, it } from 'vitest';
import {
  describeReceived,
  describeThrown,
  describeValue,
  MAX_FAILURE_MESSAGE,
  TurnFailureCode,
  toFailure,
} from '../../../kernel/index.js';

/** Values a listener, a tool or a model adapter may throw on purpose or by accident. */
function hostileValues(): { name: string; value: unknown }[] {
  const circular: Record<string, unknown> = { name: 'loop' };
  circular.self = circular;
  const throwingMessage = new Error('hidden');
  Object.defineProperty(throwingMessage, 'message', {
    get() {
      throw new Error('message getter');
    },
  });
  const throwingEverything = new Proxy(
    {},
    {
      get() {
        throw new Error('get trap');
      },
      getPrototypeOf() {
        throw new Error('prototype trap');
      },
      ownKeys() {
        throw new Error('ownKeys trap');
      },
    },
  );
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const namelessFunction = Object.defineProperty(() => {}, 'name', {
    get() {
      throw new Error('name getter');
    },
  });
  return [
    { name: 'a null-prototype object', value: Object.create(null) },
    { name: 'an object whose toString and toJSON throw', value: { toString: boom, toJSON: boom } },
    { name: 'an Error whose message getter throws', value: throwingMessage },
    { name: 'a Proxy whose every trap throws', value: throwingEverything },
    { name: 'a revoked Proxy', value: revoked.proxy },
    { name: 'a symbol', value: Symbol('sym') },
    { name: 'a BigInt', value: 10n ** 400n },
    { name: 'a circular object', value: circular },
    { name: 'a huge string', value: 'x'.repeat(5_000_000) },
    { name: 'a function with a throwing name', value: namelessFunction },
    { name: 'undefined', value: undefined },
    { name: 'null', value: null },
  ];
}

function boom(): never {
  throw new Error('boom');
}

describe('toFailure', () => {
  it('keeps the message and string code of an Error', () => {
    const error = Object.assign(new Error('disk full'), { code: 'ENOSPC' });
    expect(toFailure(error)).toEqual({ message: 'disk full', code: 'ENOSPC' });
  });

  it('reads a plain { message, code } object (a graph event, a scripted model failure)', () => {
    expect(toFailure({ message: 'overloaded', code: 'RATE_LIMIT' })).toEqual({
      message: 'overloaded',
      code: 'RATE_LIMIT',
    });
  });

  it('drops a code that is not a string', () => {
    expect(toFailure(Object.assign(new Error('x'), { code: 42 }))).toEqual({ message: 'x' });
  });

  it('names an Error without a message by its name', () => {
    expect(toFailure(new TypeError(''))).toEqual({ message: 'TypeError' });
  });

  it('keeps a thrown string as the message', () => {
    expect(toFailure('plain text')).toEqual({ message: 'plain text' });
  });

  it('says what a non-Error value was', () => {
    expect([42, '', { reason: 'quota' }, [1, 2], null].map(describeThrown)).toMatchInlineSnapshot(`
      [
        "non-Error value \`42\` (number)",
        "non-Error value \`""\` (string)",
        "non-Error value \`{"reason":"quota"}\` (object)",
        "non-Error value \`[1,2]\` (array)",
        "non-Error value \`null\` (null)",
      ]
    `);
  });

  it.each(hostileValues())(
    'never throws on $name and returns a short { message } of strings',
    ({ value }) => {
      const failure = toFailure(value);
      expect(typeof failure.message).toBe('string');
      expect(failure.message.length).toBeGreaterThan(0);
      expect(failure.message.length).toBeLessThanOrEqual(MAX_FAILURE_MESSAGE);
      expect(failure.code === undefined || typeof failure.code === 'string').toBe(true);
      expect(JSON.parse(JSON.stringify(failure))).toEqual(failure);
    },
  );

  it('says what each hostile value was', () => {
    const messages = Object.fromEntries(
      hostileValues().map(({ name, value }) => [name, describeThrown(value).slice(0, 100)]),
    );
    expect(messages).toMatchInlineSnapshot(`
      {
        "a BigInt": "non-Error value \`10000000000000000000000000000000000000000000000000000000000…\` (bigint)",
        "a Proxy whose every trap throws": "non-Error value an object",
        "a circular object": "non-Error value an object",
        "a function with a throwing name": "non-Error value a function",
        "a huge string": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "a null-prototype object": "non-Error value \`{}\` (object)",
        "a revoked Proxy": "non-Error value an object",
        "a symbol": "non-Error value \`Symbol(sym)\` (symbol)",
        "an Error whose message getter throws": "Error",
        "an object whose toString and toJSON throw": "non-Error value an object",
        "null": "non-Error value \`null\` (null)",
        "undefined": "non-Error value \`undefined\` (undefined)",
      }
    `);
  });

  it('caps a huge message and marks the cut', () => {
    const { message } = toFailure(new Error('y'.repeat(1_000_000)));
    expect(message).toHaveLength(MAX_FAILURE_MESSAGE);
    expect(message.endsWith('…')).toBe(true);
  });
});

describe('describeReceived and describeValue', () => {
  it('print received values the way option errors quote them', () => {
    const values = [-1, 'maybe', undefined, { retries: 3 }, [1], Promise.resolve(), parseInt, new Date(0)];
    expect(values.map(describeReceived)).toMatchInlineSnapshot(`
      [
        "\`-1\` (number)",
        "\`"maybe"\` (string)",
        "\`undefined\` (undefined)",
        "\`{"retries":3}\` (object)",
        "\`[1]\` (array)",
        "a Promise",
        "function parseInt",
        "an instance of Date",
      ]
    `);
  });

  it('a cut message never ends in half a character', () => {
    // 😀 is a surrogate pair; the cap falls between its two halves for one of the two offsets.
    for (const pad of [MAX_FAILURE_MESSAGE - 2, MAX_FAILURE_MESSAGE - 3]) {
      const { message } = toFailure(new Error(`${'a'.repeat(pad)}${'😀'.repeat(10)}`));
      expect(message.endsWith('…')).toBe(true);
      expect(message.length).toBeLessThanOrEqual(MAX_FAILURE_MESSAGE);
      expect(message).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    }
  });

  it.each(hostileValues())('never throw on $name and stay short', ({ value }) => {
    expect(describeReceived(value).length).toBeLessThanOrEqual(80);
    expect(describeValue(value).length).toBeLessThanOrEqual(80);
  });
});

describe('TurnFailureCode', () => {
  it('names the codes a turn records as its own failure', () => {
    expect(TurnFailureCode).toEqual({
      internalError: 'INTERNAL_ERROR',
      invalidResponse: 'INVALID_RESPONSE',
      sessionStartTimeout: 'SESSION_START_TIMEOUT',
    });
  });
});
