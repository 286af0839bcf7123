import type { NotifySeamName, SeamMap, SeamName, SerialSeamName, WaterfallSeamName } from './types.js';

/** Every seam name as a constant, so callers never scatter string literals. */
export const Seam = {
  sessionStart: 'agent/session-start',
  promptSubmit: 'agent/prompt-submit',
  preStep: 'agent/pre-step',
  postStep: 'agent/post-step',
  requestError: 'agent/request-error',
  turnContinuation: 'agent/turn-continuation',
  turnStop: 'agent/turn-stop',
  prepare: 'tools/prepare',
  preExecute: 'tools/pre-execute',
  approval: 'tools/approval',
  execute: 'tools/execute',
  postExecute: 'tools/post-execute',
  result: 'tools/result',
  modelDelta: 'model/delta',
  status: 'agent/status',
  inboxEnqueue: 'agent/inbox/enqueue',
  inboxDequeue: 'agent/inbox/dequeue',
  inboxDiscard: 'agent/inbox/discard',
  cancelRequested: 'agent/cancel-requested',
  approvalRequested: 'agent/approval-requested',
  approvalResolved: 'agent/approval-resolved',
  error: 'agent/error',
  decided: 'seam/decided',
  sessionEvent: 'session/event',
} as const satisfies Record<string, SeamName>;

/** The dispatch mode of every seam; the mapped type makes a missing seam a compile error. */
export const seamModes: { readonly [K in SeamName]: SeamMap[K]['mode'] } = {
  'agent/session-start': 'awaited-notify',
  'agent/prompt-submit': 'waterfall',
  'agent/pre-step': 'serial',
  'agent/post-step': 'serial',
  'agent/request-error': 'waterfall',
  'agent/turn-continuation': 'waterfall',
  'agent/turn-stop': 'first-result',
  'tools/prepare': 'fold',
  'tools/pre-execute': 'waterfall',
  'tools/approval': 'approval',
  'tools/execute': 'around',
  'tools/post-execute': 'waterfall',
  'tools/result': 'notify',
  'model/delta': 'notify',
  'agent/status': 'notify',
  'agent/inbox/enqueue': 'notify',
  'agent/inbox/dequeue': 'notify',
  'agent/inbox/discard': 'notify',
  'agent/cancel-requested': 'notify',
  'agent/approval-requested': 'notify',
  'agent/approval-resolved': 'notify',
  'agent/error': 'notify',
  'seam/decided': 'notify',
  'session/event': 'notify',
};

/** All seam names, in table order. */
export const seamNames: readonly SeamName[] = Object.freeze(Object.keys(seamModes) as SeamName[]);

/** Seams dispatched as a policy waterfall. */
export const waterfallSeamNames: readonly WaterfallSeamName[] = Object.freeze(
  seamNames.filter((name): name is WaterfallSeamName => seamModes[name] === 'waterfall'),
);

/** Seams dispatched as awaited serial notifications. */
export const serialSeamNames: readonly SerialSeamName[] = Object.freeze(
  seamNames.filter((name): name is SerialSeamName => seamModes[name] === 'serial'),
);

/** Observe-only seams dispatched with `seams.notify`. */
export const notifySeamNames: readonly NotifySeamName[] = Object.freeze(
  seamNames.filter((name): name is NotifySeamName => seamModes[name] === 'notify'),
);

/** Whether a raw value is a known seam name. */
export function isSeamName(rawName: unknown): rawName is SeamName {
  return typeof rawName === 'string' && Object.hasOwn(seamModes, rawName);
}
