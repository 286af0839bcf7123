import type * as acp from '@agentclientprotocol/sdk';
import type { LogEvent } from '../../kernel/index.js';
import type { SeamLogger } from '../../seams/index.js';

/**
 * What hooks and plugins said that the editor must see, as message updates: a blocked prompt's
 * reason (before the `refusal` answer) and every hook's `systemMessage` (SessionStart, Stop, …).
 * @param event one log event
 */
export function feedbackUpdates(event: LogEvent): acp.SessionUpdate[] {
  const data = event.data as Record<string, unknown>;
  const say = (text: string): acp.SessionUpdate => ({
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text: `\n${text}\n` },
  });
  if (event.type === 'prompt/blocked') return [say(`⚑ prompt blocked: ${String(data.reason)}`)];
  if (event.type !== 'hook/result') return [];
  const notes = Array.isArray(data.notes) ? data.notes : [];
  return notes.flatMap((note): acp.SessionUpdate[] => {
    const message = typeof note === 'string' ? /^systemMessage: ([\s\S]*)$/.exec(note)?.[1] : undefined;
    return message === undefined ? [] : [say(`⚑ ${String(data.event)} hook: ${message}`)];
  });
}

/**
 * A session's logger: a hook's `systemMessage` (reported as `<handler id> systemMessage: …`, the
 * handler id naming its event, `claude-code:SessionStart:0:0`) is shown to the editor, the rest logged.
 * @param say shows a message in the session
 * @param logger the server's logger
 */
export function createSessionLogger(say: (text: string) => void, logger: SeamLogger): SeamLogger {
  return {
    error: (message, details) => logger.error(message, details),
    warn(message, details) {
      const found = /^(\S+) systemMessage: ([\s\S]*)$/.exec(message);
      if (found === null) {
        (logger.warn ?? logger.error)(message, details);
        return;
      }
      const event = found[1]?.split(':')[1] ?? 'a';
      say(`\n⚑ ${event} hook: ${found[2]}\n`);
    },
  };
}
