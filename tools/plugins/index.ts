export {
  type MetricsPlugin,
  type MetricsSnapshot,
  metrics,
  type SeamMetrics,
  type ToolMetrics,
} from './metrics.js';
export { type RequestRetryOptions, type RequestRetryWait, requestRetry } from './requestRetry.js';
export { type RetryOptions, retry } from './retry.js';
export { type TimeoutOptions, timeout } from './timeout.js';
