import type {
  CoreEventData,
  CoreEventDraft,
  LogEvent,
  ToolCallBlock,
  TurnEndReason,
} from '../kernel/index.js';
import { findSuspension } from './approvals/index.js';
import { sumUsage } from './usage.js';

/** Where the log was open when it stopped: the turn and its last step (0 before step 1). */
export interface OpenPosition {
  readonly turn: number;
  readonly step: number;
}

export interface RepairOptions {
  /** Reason of the closing `turn/end`; `{ kind: 'interrupted' }` (crash repair) when absent. */
  reason?: TurnEndReason | ((open: OpenPosition) => TurnEndReason);
  /** Text of the synthetic results' error; says the session stopped when absent. */
  message?: string;
}

export interface RepairResult {
  /** The synthetic events to append, in order (empty when nothing was open). */
  readonly events: readonly CoreEventDraft[];
  /** What was repaired, one line each. */
  readonly repairs: readonly string[];
}

const PARKED_MESSAGE = 'The session stopped while this tool call waited for approval; it never ran.';

const DEFAULT_MESSAGE =
  'The session stopped before this tool call recorded a result; its outcome is unknown.';

/**
 * Closes whatever the log left open (a turn suspended on deferred approvals is left as it is): gives every started or announced tool call of the open step a
 * `TOOL_OUTCOME_UNKNOWN` result, closes the step, then closes the turn.
 * Pure: returns the events to append; used by crash repair on load and by a parent closing a dead child's turn.
 * @param events the log so far (validated events, seq order)
 * @param options the closing reason and result message
 * @example
 * const { events: drafts } = repairEvents(log.events, { reason: ({ step }) => ({ kind: 'error', step, message }) });
 * for (const draft of drafts) log.appendCore(draft.type, draft.data);
 */
export function repairEvents(events: readonly LogEvent[], options: RepairOptions = {}): RepairResult {
  const open = findOpenTurn(events);
  // A suspended turn is not a crash: it stays open on disk until an agent resumes it (approvals.md).
  if (open === undefined || findSuspension(events) !== undefined) return { events: [], repairs: [] };
  const drafts: CoreEventDraft[] = [];
  const repairs: string[] = [];
  const { turn } = open;
  const message = options.message ?? DEFAULT_MESSAGE;

  if (open.openStep !== undefined) {
    const { step, from } = open.openStep;
    const stepEvents = events.slice(from);
    const calls = new Map<string, CoreEventData<'tool/call'>>();
    const results = new Set<string>();
    // Calls waiting on a deferred approval nobody granted: provably never dispatched.
    const parked = new Map<string, string>();
    let blocks: ToolCallBlock[] = [];
    for (const event of stepEvents) {
      if (event.type === 'assistant/message') {
        const data = event.data as CoreEventData<'assistant/message'>;
        blocks = data.content.filter((block): block is ToolCallBlock => block.type === 'tool-call');
      } else if (event.type === 'tool/call') {
        const data = event.data as CoreEventData<'tool/call'>;
        calls.set(data.callId, data);
      } else if (event.type === 'tool/result') {
        results.add((event.data as CoreEventData<'tool/result'>).callId);
      } else if (event.type === 'approval/requested') {
        const data = event.data as CoreEventData<'approval/requested'>;
        parked.set(data.callId, data.requestId);
      } else if (event.type === 'approval/resolved') {
        const data = event.data as CoreEventData<'approval/resolved'>;
        if (data.outcome !== 'allowed-once') continue;
        for (const [callId, requestId] of parked) if (requestId === data.requestId) parked.delete(callId);
      }
    }
    const unknownResult = (callId: string): CoreEventDraft =>
      parked.has(callId)
        ? {
            type: 'tool/result',
            data: {
              turn,
              step,
              callId,
              content: [{ type: 'text', text: PARKED_MESSAGE }],
              isError: true,
              error: { code: 'ABORTED_BEFORE_DISPATCH', message: PARKED_MESSAGE },
            },
          }
        : {
            type: 'tool/result',
            data: {
              turn,
              step,
              callId,
              content: [{ type: 'text', text: message }],
              isError: true,
              error: { code: 'TOOL_OUTCOME_UNKNOWN', message },
            },
          };
    // Model order first, so the synthetic results keep the order invariant 5 asks for.
    for (const block of blocks) {
      if (results.has(block.id)) continue;
      results.add(block.id);
      if (!calls.has(block.id)) {
        drafts.push({
          type: 'tool/call',
          data: { turn, step, callId: block.id, name: block.name, arguments: block.arguments },
        });
        drafts.push(unknownResult(block.id));
        repairs.push(
          `tool/call + tool/result ${block.id} (turn ${turn}, step ${step}): synthetic TOOL_OUTCOME_UNKNOWN pair for a tool-call block that was never started`,
        );
      } else {
        drafts.push(unknownResult(block.id));
        repairs.push(
          `tool/result ${block.id} (turn ${turn}, step ${step}): synthetic TOOL_OUTCOME_UNKNOWN result for a tool/call without result`,
        );
      }
    }
    // A started call the last assistant message does not announce still owes a result.
    for (const callId of calls.keys()) {
      if (results.has(callId)) continue;
      results.add(callId);
      drafts.push(unknownResult(callId));
      repairs.push(
        `tool/result ${callId} (turn ${turn}, step ${step}): synthetic TOOL_OUTCOME_UNKNOWN result for a tool/call without result`,
      );
    }
    drafts.push({ type: 'step/end', data: { turn, step } });
    repairs.push(`step/end (turn ${turn}, step ${step}): closed the open step`);
  }

  const position: OpenPosition = { turn, step: open.lastStep };
  // A turn whose prompt was blocked had its outcome decided: it ends rejected (invariant 8), whatever cut it.
  const blocked = events.slice(open.start).find((event) => event.type === 'prompt/blocked');
  const reason = blocked
    ? { kind: 'rejected' as const, reason: (blocked.data as { reason: string }).reason }
    : typeof options.reason === 'function'
      ? options.reason(position)
      : (options.reason ?? { kind: 'interrupted' });
  // The usage the turn's steps reported still counts (invariant 14).
  const usage = sumUsage(events, open.start);
  drafts.push({ type: 'turn/end', data: usage === undefined ? { turn, reason } : { turn, reason, usage } });
  repairs.push(`turn/end (turn ${turn}): closed the open turn as ${reason.kind}`);
  return { events: drafts, repairs };
}

interface OpenTurn {
  readonly turn: number;
  /** Index of its `turn/start`. */
  readonly start: number;
  readonly lastStep: number;
  readonly openStep: { readonly step: number; readonly from: number } | undefined;
}

// Scans back to the last turn boundary so the cost depends on the open turn only, not the session.
function findOpenTurn(events: readonly LogEvent[]): OpenTurn | undefined {
  let start = -1;
  for (let index = events.length - 1; index >= 0; index--) {
    const type = events[index]?.type;
    if (type === 'turn/end') return undefined;
    if (type === 'turn/start') {
      start = index;
      break;
    }
  }
  if (start < 0) return undefined;
  const turn = (events[start]!.data as CoreEventData<'turn/start'>).turn;
  let lastStep = 0;
  let openStep: OpenTurn['openStep'];
  for (let index = start + 1; index < events.length; index++) {
    const event = events[index];
    if (event?.type === 'step/start') {
      lastStep = (event.data as CoreEventData<'step/start'>).step;
      openStep = { step: lastStep, from: index + 1 };
    } else if (event?.type === 'step/end') {
      openStep = undefined;
    }
  }
  return { turn, start, lastStep, openStep };
}
