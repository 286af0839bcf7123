export { capContext, capHookContext, capReason, MAX_CONTEXT_CHARS } from './capText.js';
export { cutContent, type TextMeasure } from './cutContent.js';
export { createDecidedNotice } from './decidedNotice.js';
export { deciderOf } from './decider.js';
export { formatIssues } from './describe.js';
export { createDisposer } from './disposer.js';
export { createAgentEnvironment, toolEnvironmentOf } from './environment.js';
export { SeamAbortError, SeamListenerError, type SeamListenerErrorCode } from './errors.js';
export {
  isSeamName,
  notifySeamNames,
  Seam,
  seamModes,
  seamNames,
  serialSeamNames,
  waterfallSeamNames,
} from './names.js';
export { createSeams, type SeamsOptions } from './registry.js';
export { resultSchemas } from './result-schemas.js';
export type * from './types.js';
