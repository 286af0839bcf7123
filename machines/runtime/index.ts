// The machines/runtime folder's only public face.
export type { CallHandles } from './callTable.js';
export {
  createInboxItem,
  createInjection,
  type DiscardEntry,
  freezeJson,
  type InboxItem,
  type Injection,
} from './inbox.js';
export { createLiveHandles, type LiveHandles, liveHandlesOf } from './liveHandles.js';
export {
  agentReportingScope,
  createReportingScope,
  pendingSessionStartListener,
  trackSessionStartListener,
} from './reportingScope.js';
export { type RunScope, ScopeTable } from './scopeTable.js';
export { sendToLive, sendToLiveChild } from './sendToLiveChild.js';
export type { ToolMachineServices, TurnMachineServices } from './services.js';
export { createSteppedActor } from './steppedActor.js';
export {
  createActorWithServices,
  createStepHost,
  fixedServices,
  once,
  type ServicesResolver,
  servicesOfRun,
  servicesOfSystem,
} from './systemServices.js';
export { whenStoppedFromOutside } from './whenStopped.js';
