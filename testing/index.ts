// The testing kit's only public face (re-exported by the top-level `testing.ts`).
export { activeStateNodeIds, allStateNodeIds, coverage } from './coverage.js';
export {
  createTestAgent,
  type ExpectInvariantsOptions,
  type TestAgent,
  type TestAgentOptions,
} from './createTestAgent.js';
export { createDeferredActors, type DeferredActors, type PendingInvoke } from './deferredActors.js';
export { InvariantViolationError } from './invariantViolationError.js';
export {
  type NotificationRecording,
  type RecordedNotification,
  recordNotifications,
} from './recordNotifications.js';
export {
  type AfterSteps,
  type PathRun,
  type RunPathServices,
  runPath,
  type Settlement,
  type SettleOverride,
} from './runPath.js';
export {
  describeEvent,
  describePath,
  type MachinePath,
  type SeamConfiguration,
  type SeamConfigurationPaths,
  type ShortestSeamPathsOptions,
  seamConfigurations,
  shortestSeamPaths,
} from './shortestSeamPaths.js';
export {
  type ConformanceRunner,
  type ConformanceStores,
  storeConformance,
} from './storeConformance.js';
