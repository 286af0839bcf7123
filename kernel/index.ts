// The kernel: the vocabulary every layer shares (data shapes, log events, failures); it imports nothing of ours.
export { cutChars } from './cutChars.js';
export { capText, describeReceived, describeValue, isThenable } from './describeValue.js';
export * from './events.js';
export {
  describeThrown,
  MAX_FAILURE_MESSAGE,
  TurnFailureCode,
  toFailure,
} from './failure.js';
export * from './schemas.js';
export type * from './types.js';
