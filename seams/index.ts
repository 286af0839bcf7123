export { deciderOf } from './decider.js';
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
