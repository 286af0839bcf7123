// The testing kit's only public face (re-exported by the top-level `testing.ts`).
export { activeStateNodeIds, allStateNodeIds, coverage } from './coverage.js';
export { createDeferredActors, type DeferredActors, type PendingInvoke } from './deferredActors.js';
export {
  type NotificationRecording,
  type RecordedNotification,
  recordNotifications,
} from './recordNotifications.js';
export { type PathRun, type RunPathServices, runPath, type Settlement } from './runPath.js';
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
