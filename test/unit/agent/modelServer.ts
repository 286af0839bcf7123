// A local OpenAI-compatible server that answers each request with the next step, streamed in chunks.
import {
  beginStream,
  type ChatServer,
  chunk,
  sse,
  useChatServers,
  writeSeparately,
} from '../model/chatServer.js';

/** One answer of the server: text in chunks, reasoning, tool calls (arguments in two pieces), usage. */
export interface ServerStep {
  readonly chunks?: readonly string[];
  readonly reasoning?: readonly string[];
  readonly toolCalls?: readonly { id: string; name: string; arguments: string }[];
  readonly usage?: { prompt_tokens: number; completion_tokens: number };
}

/** Registers cleanup and returns a starter for servers that play `steps`, one per request. */
export function useModelServers(): (steps: readonly ServerStep[]) => Promise<ChatServer> {
  const serve = useChatServers();
  return (steps) => {
    let next = 0;
    return serve(async (res) => {
      const step = steps[next++];
      if (step === undefined) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'the test server ran out of steps' } }));
        return;
      }
      beginStream(res);
      const pieces: string[] = [];
      for (const text of step.reasoning ?? []) pieces.push(sse(chunk({ reasoning_content: text })));
      for (const text of step.chunks ?? []) pieces.push(sse(chunk({ content: text })));
      for (const [index, call] of (step.toolCalls ?? []).entries()) {
        const half = Math.ceil(call.arguments.length / 2);
        const first = {
          index,
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments.slice(0, half) },
        };
        pieces.push(sse(chunk({ tool_calls: [first] })));
        pieces.push(
          sse(chunk({ tool_calls: [{ index, function: { arguments: call.arguments.slice(half) } }] })),
        );
      }
      pieces.push(sse(chunk({}, step.toolCalls?.length ? 'tool_calls' : 'stop')));
      if (step.usage)
        pieces.push(sse({ id: 'u', object: 'chat.completion.chunk', choices: [], usage: step.usage }));
      pieces.push(sse('[DONE]'));
      await writeSeparately(res, pieces);
      res.end();
    });
  };
}
