import {
  type CoreEventData,
  type HookContext,
  isInboxEventType,
  type LogEvent,
  type ToolCallBlock,
} from '../../kernel/index.js';
import { isCoreEventType } from '../eventSchema.js';

type Requested = CoreEventData<'approval/requested'>;
type Resolved = CoreEventData<'approval/resolved'>;

/** A deferred approval request as the log shows it: what was asked and, once answered, the answer. */
export interface ApprovalRecord {
  readonly request: Requested;
  readonly resolution: Resolved | undefined;
}

/** Where a log's last turn is suspended, read from the log alone. */
export interface Suspension {
  readonly turn: number;
  readonly step: number;
  /** Index of the open turn's `turn/start` and of the last `turn/suspended`. */
  readonly turnStartIndex: number;
  readonly suspendedIndex: number;
  readonly suspended: CoreEventData<'turn/suspended'>;
  /** Every request of the suspended step, in order, with its answer if any. */
  readonly requests: readonly ApprovalRecord[];
  /** The requests `turn/suspended` lists that have no answer yet. */
  readonly pending: readonly Requested[];
  /** The step's held contexts: those `turn/suspended` carries, then each `turn/held-context` since. */
  readonly contexts: readonly HookContext[];
}

/** What may follow `turn/suspended` while the turn stays suspended (answers, held contexts, the inbox, plugin events). */
function keepsSuspended(type: string): boolean {
  return (
    type === 'approval/resolved' ||
    type === 'turn/held-context' ||
    isInboxEventType(type) ||
    !isCoreEventType(type)
  );
}

/**
 * The suspension the log ends in, or `undefined`: the last turn is open and its last `turn/suspended` is
 * followed only by answers, held contexts, inbox and plugin events (not by `turn/resumed` or anything the turn wrote).
 * @param events the session log
 */
export function findSuspension(events: readonly LogEvent[]): Suspension | undefined {
  let suspendedIndex = -1;
  let turnStartIndex = -1;
  for (let index = events.length - 1; index >= 0; index--) {
    const type = events[index]!.type;
    if (type === 'turn/end') return undefined;
    if (type === 'turn/start') {
      turnStartIndex = index;
      break;
    }
    if (suspendedIndex < 0) {
      if (type === 'turn/suspended') suspendedIndex = index;
      else if (!keepsSuspended(type)) return undefined;
    }
  }
  if (suspendedIndex < 0 || turnStartIndex < 0) return undefined;
  const suspended = events[suspendedIndex]!.data as CoreEventData<'turn/suspended'>;
  const { turn, step } = suspended;
  const byId = new Map<string, { request: Requested; resolution: Resolved | undefined }>();
  const contexts: HookContext[] = [...suspended.contexts];
  for (let index = turnStartIndex; index < events.length; index++) {
    const event = events[index]!;
    if (event.type === 'approval/requested') {
      const request = event.data as Requested;
      if (request.turn === turn && request.step === step)
        byId.set(request.requestId, { request, resolution: undefined });
    } else if (event.type === 'approval/resolved') {
      const resolution = event.data as Resolved;
      const record = byId.get(resolution.requestId);
      if (record && record.resolution === undefined) record.resolution = resolution;
    } else if (event.type === 'turn/held-context' && index > suspendedIndex) {
      contexts.push((event.data as CoreEventData<'turn/held-context'>).context);
    }
  }
  const requests = [...byId.values()];
  const pending = suspended.pending
    .map((id) => byId.get(id))
    .filter((record) => record !== undefined && record.resolution === undefined)
    .map((record) => record!.request);
  return { turn, step, turnStartIndex, suspendedIndex, suspended, requests, pending, contexts };
}

/** Every `approval/requested` of the log by request id, with its first answer. */
export function approvalRecords(events: readonly LogEvent[]): Map<string, ApprovalRecord> {
  const records = new Map<string, { request: Requested; resolution: Resolved | undefined }>();
  for (const event of events) {
    if (event.type === 'approval/requested') {
      const request = event.data as Requested;
      records.set(request.requestId, { request, resolution: undefined });
    } else if (event.type === 'approval/resolved') {
      const resolution = event.data as Resolved;
      const record = records.get(resolution.requestId);
      if (record && record.resolution === undefined) record.resolution = resolution;
    }
  }
  return records;
}

/** The next unique request id of a session: `a1`, `a2`, … after the highest in the log. */
export function nextRequestId(events: readonly LogEvent[]): string {
  let last = 0;
  for (const event of events) {
    if (event.type !== 'approval/requested') continue;
    const match = /^a(\d+)$/.exec((event.data as Requested).requestId);
    if (match) last = Math.max(last, Number(match[1]));
  }
  return `a${last + 1}`;
}

/** How a call of a suspended step re-enters its batch on resume. */
export type ResumeSlot =
  | { readonly kind: 'committed' }
  /** Parked on `requestId`; its answer once given (an unanswered one resumes only to be cancelled). */
  | {
      readonly kind: 'parked';
      readonly requestId: string;
      readonly answer: { readonly outcome: Resolved['outcome']; readonly reason?: string } | null;
      /** The effective input `tool/call` recorded. */
      readonly arguments: string;
    }
  | { readonly kind: 'held'; readonly arguments: string }
  | { readonly kind: 'notStarted' };

/** What a resumed turn starts from, all of it read from the log. */
export interface ResumePoint {
  readonly turn: number;
  readonly step: number;
  /** The step's tool-call blocks, model order. */
  readonly calls: readonly ToolCallBlock[];
  readonly slots: readonly ResumeSlot[];
  readonly contexts: readonly HookContext[];
  /** The inbox item the turn claimed (its `turn/start` trigger), if it names one. */
  readonly itemId: string | undefined;
}

/**
 * Where the suspended turn of a log goes on: each call of the step as committed, parked (with its answer),
 * held or not started, and the step's held contexts.
 * @param events the session log
 * @param suspension the log's suspension (`findSuspension`)
 */
export function findResumePoint(events: readonly LogEvent[], suspension: Suspension): ResumePoint {
  const { turn, step } = suspension;
  let stepStart = suspension.turnStartIndex;
  for (let index = suspension.suspendedIndex; index > suspension.turnStartIndex; index--) {
    const event = events[index]!;
    if (event.type === 'step/start' && (event.data as CoreEventData<'step/start'>).step === step) {
      stepStart = index;
      break;
    }
  }
  let calls: ToolCallBlock[] = [];
  const recorded = new Map<string, string>();
  const results = new Set<string>();
  const latestRequest = new Map<string, ApprovalRecord>();
  const resolutions = new Map<string, Resolved>();
  for (let index = stepStart; index < events.length; index++) {
    const event = events[index]!;
    switch (event.type) {
      case 'assistant/message':
        calls = (event.data as CoreEventData<'assistant/message'>).content.filter(
          (block): block is ToolCallBlock => block.type === 'tool-call',
        );
        break;
      case 'tool/call': {
        const data = event.data as CoreEventData<'tool/call'>;
        recorded.set(data.callId, data.arguments);
        break;
      }
      case 'tool/result':
        results.add((event.data as CoreEventData<'tool/result'>).callId);
        break;
      case 'approval/requested': {
        const request = event.data as Requested;
        latestRequest.set(request.callId, { request, resolution: undefined });
        break;
      }
      case 'approval/resolved': {
        const resolution = event.data as Resolved;
        if (!resolutions.has(resolution.requestId)) resolutions.set(resolution.requestId, resolution);
        break;
      }
      default:
        break;
    }
  }
  const slots = calls.map((call): ResumeSlot => {
    if (results.has(call.id)) return { kind: 'committed' };
    const args = recorded.get(call.id);
    if (args === undefined) return { kind: 'notStarted' };
    const latest = latestRequest.get(call.id);
    if (latest !== undefined) {
      const resolution = resolutions.get(latest.request.requestId);
      return {
        kind: 'parked',
        requestId: latest.request.requestId,
        answer:
          resolution === undefined
            ? null
            : resolution.reason === undefined
              ? { outcome: resolution.outcome }
              : { outcome: resolution.outcome, reason: resolution.reason },
        arguments: args,
      };
    }
    return { kind: 'held', arguments: args };
  });
  const trigger = (events[suspension.turnStartIndex]!.data as CoreEventData<'turn/start'>).trigger;
  return { turn, step, calls, slots, contexts: suspension.contexts, itemId: trigger.itemId };
}
