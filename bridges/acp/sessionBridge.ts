import * as acp from '@agentclientprotocol/sdk';
import type { ContentBlock, LogEvent } from '../../kernel/index.js';
import type { Disposer, SeamCtx } from '../../seams/index.js';
import { Seam } from '../../seams/index.js';
import { toAcpText } from './content.js';
import { feedbackUpdates } from './feedback.js';
import { createRememberedApprovals } from './permission.js';
import { type EndReason, toStopReason } from './stopReason.js';
import {
  type KindOf,
  type LoggedToolCall,
  type LoggedToolResult,
  toToolCall,
  toToolCallEnd,
  toToolCallId,
} from './toolCalls.js';
import { toToolKindFrom } from './toolKind.js';
import type { AcpSession } from './types.js';

/** What one session's bridge needs from the connection. */
export interface SessionOutlet {
  readonly sessionId: string;
  readonly rejectedStopReason: 'refusal' | 'cancelled';
  notify(update: acp.SessionUpdate): Promise<void>;
  report(message: string): void;
}

interface PendingPrompt {
  messageId: string;
  cancelled: boolean;
  resolve(response: acp.PromptResponse): void;
  reject(error: unknown): void;
}

/** One ACP session driving one agent: prompts wait for their own turn, log events become updates. */
export interface SessionBridge {
  /** `session/prompt`: one followup; resolves when that message's turn ends. */
  prompt(content: ContentBlock[]): Promise<acp.PromptResponse>;
  /** `session/cancel`: every prompt not yet answered answers `cancelled`. */
  cancel(): void;
  /** The history logged before the bridge listened (`session/load`; a new session's SessionStart hooks). */
  replay(): Promise<void>;
  /** Disposes the agent, then the session's own resources; answers what is still open. */
  dispose(): Promise<void>;
}

/**
 * Wires one created session to the editor: registers the bridge's listeners on the session's seams
 * (filtered to its agent) and tracks which turn answers which prompt.
 * @param session what `createSession` returned
 * @param outlet the connection side: updates, the stop-reason option, a reporter
 */
export function bridgeSession(session: AcpSession, outlet: SessionOutlet): SessionBridge {
  const { agent, seams } = session;
  const kindOf: KindOf = (name) => toToolKindFrom(session, name);
  const byMessage = new Map<string, PendingPrompt>();
  const byTurn = new Map<number, PendingPrompt>();
  // The agent may claim a followup before followup() returns its id: the enqueue event names it first.
  let enqueuing: PendingPrompt | undefined;
  // Updates go out in log order, and a prompt's response only after its updates.
  let outbox: Promise<void> = Promise.resolve();
  const send = (update: acp.SessionUpdate): void => {
    outbox = outbox
      .then(() => outlet.notify(update))
      .catch((error: unknown) => outlet.report(`session/update failed: ${(error as Error).message}`));
  };
  const settle = (pending: PendingPrompt, answer: () => void): void => {
    byMessage.delete(pending.messageId);
    for (const [turn, entry] of byTurn) if (entry === pending) byTurn.delete(turn);
    void outbox.then(answer);
  };
  const endPrompt = (pending: PendingPrompt, reason: EndReason): void => {
    const stopReason = pending.cancelled ? 'cancelled' : toStopReason(reason, outlet.rejectedStopReason);
    if (stopReason !== 'error') {
      settle(pending, () => pending.resolve({ stopReason }));
      return;
    }
    const message = reason.message ?? 'the turn failed';
    settle(pending, () =>
      pending.reject(
        new acp.RequestError(-32603, message, { code: reason.code ?? null, step: reason.step ?? null }),
      ),
    );
  };
  const failAll = (message: string): void => {
    for (const pending of [...byMessage.values()])
      settle(pending, () =>
        pending.reject(new acp.RequestError(-32603, message, { code: 'SESSION_FAILED' })),
      );
  };
  const cancelAll = (): void => {
    for (const pending of [...byMessage.values()])
      settle(pending, () => pending.resolve({ stopReason: 'cancelled' }));
  };

  // Which block types of a step have streamed (`text`, `reasoning`), keyed `<turn>.<step>`.
  const streamed = new Map<string, Set<string>>();
  const onDelta = ({ turn, step, delta }: SeamCtx<'model/delta'>): void => {
    const key = stepKey(turn, step);
    if (delta.kind === 'discard') {
      // The step failed or was cancelled after streaming; a retry streams (or answers) afresh.
      streamed.delete(key);
      return;
    }
    if (delta.kind !== 'text' && delta.kind !== 'reasoning') return;
    if (delta.text === '') return;
    const kinds = streamed.get(key) ?? new Set<string>();
    kinds.add(delta.kind);
    streamed.set(key, kinds);
    send({
      sessionUpdate: delta.kind === 'text' ? 'agent_message_chunk' : 'agent_thought_chunk',
      content: { type: 'text', text: delta.text },
    });
  };

  const onEvent = (event: LogEvent): void => {
    // Hook systemMessages arrive live through the session's logger (`say`); the log replays them on load.
    if (event.type === 'prompt/blocked') for (const update of feedbackUpdates(event)) send(update);
    const data = event.data as Record<string, unknown>;
    switch (event.type) {
      case 'turn/start': {
        // A message's turn names the inbox item it claimed: the prompt it answers.
        const trigger = data.trigger as { kind?: string; itemId?: string } | undefined;
        const pending = trigger?.itemId === undefined ? undefined : byMessage.get(trigger.itemId);
        if (trigger?.kind === 'message' && pending) byTurn.set(data.turn as number, pending);
        return;
      }
      case 'turn/end': {
        const pending = byTurn.get(data.turn as number);
        if (pending) endPrompt(pending, data.reason as EndReason);
        return;
      }
      case 'assistant/message': {
        // Text that already streamed as deltas is not sent again; an adapter that does not stream sends it here.
        const key = stepKey(data.turn as number, data.step as number);
        const already = streamed.get(key);
        streamed.delete(key);
        const content = (data.content as ContentBlock[]).filter((block) => !already?.has(block.type));
        for (const update of messageUpdates(content)) send(update);
        return;
      }
      case 'tool/call':
        send({ sessionUpdate: 'tool_call', ...toToolCall(data as unknown as LoggedToolCall, kindOf) });
        return;
      case 'tool/result':
        send({ sessionUpdate: 'tool_call_update', ...toToolCallEnd(data as unknown as LoggedToolResult) });
        return;
    }
  };

  const loggedBefore = agent.log.events.length;
  const filter = { agent: agent.id };
  const disposers: Disposer[] = [
    seams.on(Seam.sessionEvent, ({ event }) => onEvent(event), { ...filter, name: 'acp.updates' }),
    seams.on(Seam.modelDelta, onDelta, { ...filter, name: 'acp.deltas' }),
    seams.on(
      Seam.inboxEnqueue,
      ({ id, steering }) => {
        if (!enqueuing || steering) return;
        enqueuing.messageId = id;
        byMessage.set(id, enqueuing);
        enqueuing = undefined;
      },
      { ...filter, name: 'acp.prompts' },
    ),
    seams.on(
      Seam.inboxDiscard,
      ({ items }) => {
        for (const item of items) {
          const pending = byMessage.get(item.id);
          if (pending) settle(pending, () => pending.resolve({ stopReason: 'cancelled' }));
        }
      },
      { ...filter, name: 'acp.discards' },
    ),
    seams.on(
      Seam.status,
      ({ status }) => {
        if (status === 'disposed') cancelAll();
        // A session whose store failed takes no more turns: what is still open is answered with an error.
        else if ((status as string) === 'failed')
          failAll(`session ${agent.id} failed and takes no more prompts`);
      },
      { ...filter, name: 'acp.disposal' },
    ),
    // Outermost, so `in_progress` is sent when the body's dispatch starts, before any wrapper's retry.
    seams.on(
      Seam.execute,
      (exec, next) => {
        if (exec.turn !== undefined && exec.step !== undefined) {
          send({
            sessionUpdate: 'tool_call_update',
            toolCallId: toToolCallId(exec.turn, exec.step, exec.callId),
            status: 'in_progress',
          });
        }
        return next();
      },
      { ...filter, prepend: true, name: 'acp.progress' },
    ),
    seams.on(Seam.approval, createRememberedApprovals(), { ...filter, name: 'acp.rememberedApprovals' }),
  ];

  let disposal: Promise<void> | undefined;
  return {
    prompt(content) {
      return new Promise<acp.PromptResponse>((resolve, reject) => {
        enqueuing = { messageId: '', cancelled: false, resolve, reject };
        try {
          agent.followup(content);
        } finally {
          enqueuing = undefined;
        }
      });
    },
    cancel() {
      for (const pending of byMessage.values()) pending.cancelled = true;
      agent.cancel();
    },
    async replay() {
      // Later events went out live as they were logged.
      for (const update of replayUpdates(agent.log.events.slice(0, loggedBefore), kindOf)) send(update);
      await outbox;
    },
    dispose() {
      disposal ??= (async () => {
        await agent.dispose();
        cancelAll();
        for (const dispose of disposers) dispose();
        await outbox;
        await session.close?.();
      })();
      return disposal;
    },
  };
}

function stepKey(turn: number, step: number): string {
  return `${turn}.${step}`;
}

function messageUpdates(content: readonly ContentBlock[]): acp.SessionUpdate[] {
  return [
    ...toAcpText(content, 'reasoning').map((block) => ({
      sessionUpdate: 'agent_thought_chunk' as const,
      content: block,
    })),
    ...toAcpText(content, 'text').map((block) => ({
      sessionUpdate: 'agent_message_chunk' as const,
      content: block,
    })),
  ];
}

/** A stored history as the updates an editor would have seen (tool calls in their final state). */
export function replayUpdates(events: readonly LogEvent[], kindOf: KindOf): acp.SessionUpdate[] {
  return events.flatMap((event): acp.SessionUpdate[] => {
    const data = event.data as Record<string, unknown>;
    switch (event.type) {
      case 'user/message':
        return toAcpText(data.content as ContentBlock[], 'text').map((block) => ({
          sessionUpdate: 'user_message_chunk',
          content: block,
        }));
      case 'prompt/blocked':
        return [
          ...toAcpText(data.content as ContentBlock[], 'text').map((block) => ({
            sessionUpdate: 'user_message_chunk' as const,
            content: block,
          })),
          ...feedbackUpdates(event),
        ];
      case 'hook/result':
        return feedbackUpdates(event);
      case 'assistant/message':
        return messageUpdates(data.content as ContentBlock[]);
      case 'tool/call':
        return [{ sessionUpdate: 'tool_call', ...toToolCall(data as unknown as LoggedToolCall, kindOf) }];
      case 'tool/result':
        return [{ sessionUpdate: 'tool_call_update', ...toToolCallEnd(data as unknown as LoggedToolResult) }];
      default:
        return [];
    }
  });
}
