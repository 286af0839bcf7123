// The `seamchart/testing` entry: what users need to test their own plugins the way we test ours.
export { checkInvariants, checkLedger, coreTurnEvents, formatViolation } from './session/index.js';
export * from './testing/index.js';
