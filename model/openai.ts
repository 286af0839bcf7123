import { createAbortedError } from './abort.js';
import { toChatCompletionBody } from './openaiBody.js';
import {
  type OpenAICompatibleOptions,
  type ResolvedOpenAIOptions,
  resolveOpenAIOptions,
} from './openaiOptions.js';
import { describeCause, readChatStream } from './openaiStream.js';
import { mergeModelSettings } from './settings.js';
import {
  type ModelAdapter,
  ModelErrorCode,
  type ModelRequest,
  ModelRequestError,
  type ModelStep,
} from './types.js';

/**
 * Creates a model adapter that streams chat completions from an OpenAI-compatible server (OpenAI, DeepSeek, …).
 * @param options - `baseURL`, `apiKey`, `model`, and optionally `settings`, `fetch` and `headers`
 * @throws TypeError naming the bad option, what was expected and what was received
 * @example
 * const model = openAICompatible({
 *   baseURL: 'https://api.deepseek.com/v1',
 *   apiKey: process.env.OPENAI_API_KEY ?? '',
 *   model: 'deepseek-chat',
 * });
 * const agent = createAgent({ seams, tools, model });
 */
export function openAICompatible(options: OpenAICompatibleOptions): ModelAdapter {
  const config = resolveOpenAIOptions(options);
  return { settings: config.settings, request: (request) => requestStep(config, request) };
}

async function requestStep(config: ResolvedOpenAIOptions, request: ModelRequest): Promise<ModelStep> {
  const { signal } = request;
  if (signal.aborted) throw createAbortedError(signal);
  let response: Response;
  try {
    response = await config.fetch(config.url, {
      method: 'POST',
      headers: config.headers,
      // Idempotent when the agent already merged: a direct caller's partial settings still get the defaults.
      body: JSON.stringify(
        toChatCompletionBody(request, config.model, mergeModelSettings(config.settings, request.settings)),
      ),
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw createAbortedError(signal);
    throw new ModelRequestError(
      {
        message: `Could not reach the model server at ${config.url}: ${describeCause(error)}`,
        code: ModelErrorCode.network,
      },
      { cause: error },
    );
  }
  if (!response.ok) throw await toHttpError(response, config.url, signal);
  if (response.body === null) {
    throw new ModelRequestError({
      message: `The model server at ${config.url} answered without a body`,
      code: ModelErrorCode.invalidResponse,
    });
  }
  return readChatStream(response.body, signal, request.onDelta);
}

async function toHttpError(response: Response, url: string, signal: AbortSignal): Promise<ModelRequestError> {
  let body = '';
  try {
    body = await response.text();
  } catch {
    if (signal.aborted) return createAbortedError(signal);
  }
  const serverMessage = readErrorMessage(body);
  const message =
    serverMessage ?? `The model server at ${url} answered HTTP ${response.status} ${response.statusText}`;
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
  return new ModelRequestError(
    {
      message,
      code: toHttpErrorCode(response.status),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    },
    { cause: body },
  );
}

/** `retry-after` as ms: delay-seconds or an HTTP date (RFC 9110 §10.2.3); `undefined` when absent or malformed. */
function parseRetryAfter(header: string | null): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(header)) return Math.round(Number(header) * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function toHttpErrorCode(status: number): string {
  if (status === 429) return ModelErrorCode.rateLimit;
  if (status === 401 || status === 403) return ModelErrorCode.auth;
  return `HTTP_${status}`;
}

/** The `error.message` of an OpenAI-style error body, if the body is one. */
function readErrorMessage(body: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== 'object' || parsed === null || !('error' in parsed)) return undefined;
    const { error } = parsed;
    if (typeof error === 'string') return error;
    if (
      typeof error === 'object' &&
      error !== null &&
      'message' in error &&
      typeof error.message === 'string'
    ) {
      return error.message;
    }
  } catch {
    // Not JSON (e.g. a proxy's HTML page): the status line says enough.
  }
  return undefined;
}
