export { createDeltaRelay } from './deltaRelay.js';
export type { Instructions, InstructionsContext } from './instructions.js';
export { evaluateInstructions } from './instructions.js';
export { openAICompatible } from './openai.js';
export type { OpenAICompatibleOptions } from './openaiOptions.js';
export { createRequestDeriver, deriveMessages, type RequestDeriver } from './request.js';
export { parseScript, type ScriptStep, ScriptStepSchema, type ScriptToolCall } from './script.js';
export {
  type RecordedModelRequest,
  type ScriptedModel,
  type ScriptedModelOptions,
  scriptedModel,
} from './scripted.js';
export {
  type ModelSettings,
  ModelSettingsSchema,
  mergeModelSettings,
  parseModelSettings,
  settingsForRequest,
  type ToolChoice,
} from './settings.js';
export {
  type ModelAdapter,
  ModelErrorCode,
  type ModelMessage,
  type ModelRequest,
  ModelRequestError,
  type ModelStep,
} from './types.js';
