// OpenTelemetry spans of a run, through `@opentelemetry/api` (an optional peer dependency).
export { type OpenTelemetryOptions, openTelemetry } from './openTelemetry.js';
