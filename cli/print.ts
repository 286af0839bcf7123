import type { LogEvent } from '../index.js';

type Block = { type: string; text?: string; name?: string; arguments?: string };

function blocksText(blocks: unknown): string {
  return (blocks as Block[])
    .map((b) => (b.type === 'tool-call' ? `[call ${b.name} ${b.arguments}]` : (b.text ?? '')))
    .join(' ');
}

/** One human line for a log event, as the demo and `seamchart log` print it. */
export function describeEvent(event: LogEvent): string {
  const data = (event.data ?? {}) as Record<string, unknown>;
  const head = `${String(event.seq).padStart(4)} ${event.type}`;
  switch (event.type) {
    case 'turn/start':
      return `${head} #${String(data.turn)} ${JSON.stringify(data.trigger)}`;
    case 'user/message':
    case 'context/message':
    case 'steering/message':
      return `${head} ${blocksText(data.content)}`;
    case 'prompt/blocked':
      return `${head} ${blocksText(data.content)} — ${String(data.reason)}`;
    case 'assistant/message':
      return `${head} ${blocksText(data.content)} (${String(data.finish)})`;
    case 'tool/call':
      return `${head} ${String(data.callId)} ${String(data.name)} ${String(data.arguments)}`;
    case 'tool/result': {
      const error = data.error as { code?: string } | undefined;
      const status = data.isError ? `error ${error?.code ?? ''}`.trim() : 'ok';
      return `${head} ${String(data.callId)} ${status}: ${blocksText(data.content)}`;
    }
    case 'step/start':
    case 'step/end':
      return `${head} ${String(data.turn)}.${String(data.step)}`;
    case 'turn/end':
      return `${head} #${String(data.turn)} ${JSON.stringify(data.reason)}`;
    default:
      return `${head} ${JSON.stringify(data)}`;
  }
}
