// The inspector page: a session log as one self-contained HTML document.
export type {
  CallView,
  EventRow,
  HookView,
  InspectModel,
  NoteView,
  RequestView,
  StepView,
  TurnView,
} from './model.js';
export { buildInspectModel } from './model.js';
export { type InspectSource, inspectModelOf, renderInspectorPage, scriptSafeJson } from './page.js';
