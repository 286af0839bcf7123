// The kernel: the vocabulary every layer shares; it imports nothing of ours.
export { capText, describeReceived, describeValue, isThenable } from './describeValue.js';
export {
  describeThrown,
  type Failure,
  FailureSchema,
  MAX_FAILURE_MESSAGE,
  TurnFailureCode,
  toFailure,
} from './failure.js';
