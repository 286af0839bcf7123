import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { describeThrown, type ModelDelta } from '../kernel/index.js';
import { createAbortedError } from './abort.js';
import { createChunkAggregator } from './openaiChunks.js';
import { ModelErrorCode, ModelRequestError, type ModelStep } from './types.js';

// A server that never ends an event must not grow memory without bound.
const maxEventChars = 16 * 1024 * 1024;

/** Reads a chat-completions event stream to its end and resolves with the aggregated step. */
export async function readChatStream(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  onDelta?: (delta: ModelDelta) => void,
): Promise<ModelStep> {
  const aggregator = createChunkAggregator(onDelta);
  const events: EventSourceMessage[] = [];
  let parseFailure: string | undefined;
  const parser = createParser({
    maxBufferSize: maxEventChars,
    onEvent: (event) => events.push(event),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') parseFailure = error.message;
    },
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  // Cancelling the reader ends a pending read even when a custom `fetch` ignores the signal.
  const cancel = (): void => void reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener('abort', cancel, { once: true });
  let done = false;
  try {
    while (!done) {
      const chunk = await readChunk(reader, signal, aggregator.finished);
      if (chunk === undefined) {
        parser.reset({ consume: true });
      } else {
        parser.feed(decoder.decode(chunk, { stream: true }));
      }
      if (parseFailure !== undefined) throw invalidEventStream(parseFailure);
      for (const event of events.splice(0)) {
        if (event.data.trim() === '[DONE]') {
          done = true;
          break;
        }
        aggregator.add(event.data);
      }
      if (chunk === undefined) break;
    }
  } catch (error) {
    cancel();
    throw error;
  } finally {
    signal.removeEventListener('abort', cancel);
  }
  if (done) cancel(); // release the connection: nothing after [DONE] matters
  if (!done && !aggregator.finished) {
    throw new ModelRequestError({
      message: 'The model stream ended before [DONE] or a finish_reason',
      code: ModelErrorCode.streamInterrupted,
    });
  }
  return aggregator.toStep();
}

/** One body chunk, or `undefined` at the end (also a drop after `finish_reason`, when the answer is complete). */
async function readChunk(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  signal: AbortSignal,
  finished: boolean,
): Promise<Uint8Array | undefined> {
  let result: Awaited<ReturnType<typeof reader.read>>;
  try {
    result = await reader.read();
  } catch (error) {
    if (signal.aborted) throw createAbortedError(signal);
    if (finished) return undefined;
    throw new ModelRequestError(
      {
        message: `The model stream was interrupted: ${describeCause(error)}`,
        code: ModelErrorCode.streamInterrupted,
      },
      { cause: error },
    );
  }
  if (signal.aborted) throw createAbortedError(signal);
  return result.done ? undefined : result.value;
}

function invalidEventStream(reason: string): ModelRequestError {
  return new ModelRequestError({
    message: `The model stream is not a valid event stream: ${reason}`,
    code: ModelErrorCode.invalidResponse,
  });
}

/** An error's message plus its cause's (undici hides the useful part, e.g. ECONNREFUSED, in `cause`). */
export function describeCause(error: unknown): string {
  const message = describeThrown(error);
  if (!(error instanceof Error) || !(error.cause instanceof Error)) return message;
  return `${message} (${describeThrown(error.cause)})`;
}
