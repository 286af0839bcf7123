import type { ToolResult } from '../../kernel/index.js';
import { describeReceived } from '../../kernel/index.js';
import type { ApprovalChannel, Seams } from '../../seams/index.js';
import type { ExecuteOptions, ToolCallRequest, ToolRegistry } from '../../tools/index.js';
import { createToolRegistryCore } from '../../tools/index.js';
import type { RunScope, ToolMachineServices } from '../runtime/index.js';
import { createStepHost, createSteppedActor, liveHandlesOf } from '../runtime/index.js';
import { sharedToolCallLogic } from './logic.js';
import type { ToolCallOutput } from './types.js';

const DEFAULT_CANCEL_GRACE_MS = 5_000;

/**
 * Creates a tool registry: register tools, list their schemas, and run one call through the whole
 * pipeline standalone (`execute`: no batch, no log).
 * @example
 * const tools = createToolRegistry();
 * tools.register(echo);
 * const result = await tools.execute({ name: 'echo', arguments: '{"text":"hi"}' }, { seams });
 */
export function createToolRegistry(): ToolRegistry {
  const core = createToolRegistryCore();
  let calls = 0;
  let runs = 0;
  // The registry owns one step host per seams registry and grace (a host is a system, not an actor):
  // calls that share one are keyed apart in its live handles.
  const hosts = new WeakMap<Seams, Map<number, StepHost>>();
  const hostFor = (seams: Seams, cancelGraceMs: number): StepHost => {
    let byGrace = hosts.get(seams);
    if (byGrace === undefined) {
      byGrace = new Map();
      hosts.set(seams, byGrace);
    }
    let host = byGrace.get(cancelGraceMs);
    if (host === undefined) {
      host = createStepHost({ tools: core, seams, cancelGraceMs } satisfies ToolMachineServices);
      byGrace.set(cancelGraceMs, host);
    }
    return host;
  };

  const execute = async (rawRequest: ToolCallRequest, rawOptions: ExecuteOptions): Promise<ToolResult> => {
    const options = resolveExecuteOptions(rawOptions);
    // Numbered only once both are valid: a refused call takes no id.
    const call = validateRequest(rawRequest, () => `call-${++calls}`);
    const { signal } = options;
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    // An inspected call gets a system of its own, so its observer sees that call only.
    const host =
      options.inspect === undefined
        ? hostFor(options.seams, options.cancelGraceMs)
        : createStepHost(
            {
              tools: core,
              seams: options.seams,
              cancelGraceMs: options.cancelGraceMs,
            } satisfies ToolMachineServices,
            options.inspect,
          );
    const seams = options.seams.snapshot(call.agent?.id);
    // Built field by field: a spread per call costs a new hidden class (decision 24).
    const scope: { -readonly [K in keyof RunScope]: RunScope[K] } = { seams, controller };
    if (call.agent) scope.agent = call.agent;
    if (options.approval) scope.approval = options.approval;
    try {
      return await executeStepped(host, `tools.execute#${++runs}`, scope, call);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  };

  return { ...core, execute };
}

type StepHost = ReturnType<typeof createStepHost>;

/**
 * The call's chart, stepped by the engine (no actor) in its host's system, whose root holds its
 * services. The request may carry live handles (agent, parent), so the call is opened in handles
 * under its own keys (unique in the registry, which the host serves alone) before anything runs, and closed with them when it is done.
 */
async function executeStepped(
  root: StepHost,
  scopeKey: string,
  scope: RunScope,
  call: CallRequest,
): Promise<ToolResult> {
  const handles = liveHandlesOf(root.system);
  const callKey = `${scopeKey}/call`;
  try {
    return await new Promise<ToolResult>((resolve, reject) => {
      handles.scopes.openAs(scopeKey, scope);
      handles.calls.openAsRun(callKey, call, scope.controller);
      // A machine failure rejects, it never crashes.
      const stepped = createSteppedActor(sharedToolCallLogic(), {
        parent: root,
        system: root.system,
        id: 'toolCall',
        sessionId: `${root.sessionId}/${callKey}`,
        input: { scopeKey, callKey, batched: false },
        done: (output) => resolve((output as ToolCallOutput).result),
        failed: (error) => reject(internalFailure(call, error)),
      });
      stepped.start();
    });
  } finally {
    handles.close(scopeKey);
  }
}

/** A failure of the pipeline itself (not of the tool or a listener, which are the call's result). */
function internalFailure(call: CallRequest, cause: unknown): Error {
  return new Error(`tools.execute failed internally for "${call.name}"`, { cause });
}

/** A request as `execute` runs it: read once, with its call id. */
type CallRequest = { -readonly [K in keyof ToolCallRequest]: ToolCallRequest[K] } & { callId: string };

// The request's fields are read once here; sealing reads this copy.
function validateRequest(rawRequest: ToolCallRequest, nextCallId: () => string): CallRequest {
  if (rawRequest === null || typeof rawRequest !== 'object') {
    throw new TypeError(
      `Expected tools.execute() to receive a request object, got ${describeReceived(rawRequest)}`,
    );
  }
  const { name, arguments: args, callId, agent, parent } = rawRequest;
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(
      `Expected the \`name\` of tools.execute() to be a tool name, got ${describeReceived(name)}`,
    );
  }
  if (callId !== undefined && (typeof callId !== 'string' || callId === '')) {
    throw new TypeError(
      `Expected the \`callId\` of tools.execute() to be a non-empty string, got ${describeReceived(callId)}`,
    );
  }
  const request: CallRequest = { name, arguments: args, callId: callId ?? nextCallId() };
  if (agent !== undefined) request.agent = agent;
  if (parent !== undefined) request.parent = parent;
  return request;
}

/** The options `execute` reads, checked, with the default grace. */
interface ResolvedExecuteOptions {
  readonly seams: Seams;
  readonly signal: AbortSignal | undefined;
  readonly approval: ApprovalChannel | undefined;
  readonly cancelGraceMs: number;
  readonly inspect: ExecuteOptions['inspect'];
}

function resolveExecuteOptions(rawOptions: ExecuteOptions): ResolvedExecuteOptions {
  const options = (rawOptions ?? {}) as Partial<ExecuteOptions>;
  if (!options.seams || typeof options.seams.snapshot !== 'function') {
    throw new TypeError(
      `Expected the \`seams\` option of tools.execute() to be a registry from createSeams(), got ${describeReceived(options.seams)}`,
    );
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new TypeError(
      `Expected the \`signal\` option of tools.execute() to be an AbortSignal, got ${describeReceived(options.signal)}`,
    );
  }
  const grace = options.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS;
  if (typeof grace !== 'number' || !Number.isFinite(grace) || grace < 0) {
    throw new TypeError(
      `Expected the \`cancelGraceMs\` option of tools.execute() to be a non-negative number, got ${describeReceived(grace)}`,
    );
  }
  if (options.inspect !== undefined && typeof options.inspect !== 'function') {
    throw new TypeError(
      `Expected the \`inspect\` option of tools.execute() to be an inspection observer function, got ${describeReceived(options.inspect)}`,
    );
  }
  return {
    seams: options.seams,
    signal: options.signal,
    approval: options.approval,
    cancelGraceMs: grace,
    inspect: options.inspect,
  };
}
