import { describeReceived } from '../kernel/index.js';
import { type ModelSettings, parseModelSettings } from './settings.js';

/** Options of `openAICompatible`. */
export interface OpenAICompatibleOptions {
  /** The API root, e.g. `https://api.deepseek.com/v1`; `/chat/completions` is appended. */
  readonly baseURL: string;
  /** Sent as `Authorization: Bearer <apiKey>`; an empty string sends no header (local servers). */
  readonly apiKey: string;
  readonly model: string;
  /** Defaults to the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Extra request headers (they win over the defaults). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Default model settings (temperature, …); the agent's `modelSettings` override them per key. */
  readonly settings?: ModelSettings;
}

/** `OpenAICompatibleOptions` with every default applied. */
export interface ResolvedOpenAIOptions {
  readonly url: string;
  readonly model: string;
  readonly fetch: typeof fetch;
  readonly headers: Readonly<Record<string, string>>;
  readonly settings: ModelSettings;
}

/** Validates raw options and fills the defaults; throws `TypeError` naming the bad option. */
export function resolveOpenAIOptions(rawOptions: OpenAICompatibleOptions): ResolvedOpenAIOptions {
  if (typeof rawOptions !== 'object' || rawOptions === null) {
    throw new TypeError(`openAICompatible: expected an options object, got ${describeReceived(rawOptions)}`);
  }
  const { baseURL, apiKey, model, fetch: customFetch, headers, settings } = rawOptions;
  if (typeof baseURL !== 'string' || !isHttpURL(baseURL)) {
    throw optionError('baseURL', 'an http(s) URL such as `https://api.openai.com/v1`', baseURL);
  }
  if (typeof apiKey !== 'string') throw optionError('apiKey', 'a string (may be empty)', apiKey);
  if (typeof model !== 'string' || model === '') throw optionError('model', 'a non-empty string', model);
  if (customFetch !== undefined && typeof customFetch !== 'function') {
    throw optionError('fetch', 'a fetch function', customFetch);
  }
  if (headers !== undefined && !isStringRecord(headers)) {
    throw optionError('headers', 'an object of string values', headers);
  }
  return {
    settings: parseModelSettings(settings, 'openAICompatible() option `settings`'),
    url: `${baseURL.replace(/\/+$/, '')}/chat/completions`,
    model,
    fetch: customFetch ?? globalThis.fetch,
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(apiKey === '' ? {} : { authorization: `Bearer ${apiKey}` }),
      // Lower-cased so a caller's `Authorization` replaces ours instead of being joined to it.
      ...Object.fromEntries(
        Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
      ),
    },
  };
}

function optionError(option: string, expected: string, received: unknown): TypeError {
  return new TypeError(
    `openAICompatible: expected the \`${option}\` option to be ${expected}, got ${describeReceived(received)}`,
  );
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string')
  );
}

// `URL.parse` arrived late in Node 20, so the constructor is used.
function isHttpURL(text: string): boolean {
  try {
    return /^https?:$/.test(new URL(text).protocol);
  } catch {
    return false;
  }
}
