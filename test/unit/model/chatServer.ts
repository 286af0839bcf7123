import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/** One request as the local server received it. */
export interface ReceivedRequest {
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly headers: IncomingMessage['headers'];
  readonly body: unknown;
}

/** Answers one request; `closed` resolves when the client's connection goes away. */
export type ChatHandler = (res: ServerResponse, context: { closed: Promise<void> }) => void | Promise<void>;

export interface ChatServer {
  /** The base URL to give `openAICompatible` (ends in `/v1`). */
  readonly baseURL: string;
  readonly received: ReceivedRequest[];
  close(): Promise<void>;
}

/** Starts a real HTTP server on 127.0.0.1 (random port) that speaks whatever `handler` writes. */
export async function startChatServer(handler: ChatHandler): Promise<ChatServer> {
  const received: ReceivedRequest[] = [];
  const server = createServer(async (req, res) => {
    let raw = '';
    for await (const part of req) raw += String(part);
    received.push({ method: req.method, path: req.url, headers: req.headers, body: JSON.parse(raw) });
    const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
    await handler(res, { closed });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Starts streaming: status 200 and the SSE content type. */
export function beginStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
}

/** One SSE event carrying `data` as JSON (a string is sent verbatim). */
export function sse(data: unknown): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** A `chat.completion.chunk` with one choice. */
export function chunk(
  delta: Record<string, unknown>,
  finishReason: string | null = null,
): Record<string, unknown> {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'test-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

/** Writes each piece as its own TCP write, letting the client see them arrive separately. */
export async function writeSeparately(res: ServerResponse, pieces: readonly string[]): Promise<void> {
  for (const piece of pieces) {
    res.write(piece);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Registers an `afterEach` that closes every server a test started; returns the starter. */
export function useChatServers(): (handler: ChatHandler) => Promise<ChatServer> {
  const servers: ChatServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async (handler) => {
    const server = await startChatServer(handler);
    servers.push(server);
    return server;
  };
}
