import type * as OtelApi from '@opentelemetry/api';
import type { LogEvent, TurnEndReason } from '../kernel/index.js';
import type { ProcessPlace, SeamPlugin, Seams } from '../seams/index.js';

// What the plugin uses of the API module (a namespace import, or a dynamic import's CommonJS interop).
type Api = Pick<typeof OtelApi, 'trace' | 'context' | 'SpanStatusCode'>;
type Span = OtelApi.Span;

/** How the tracing plugin is set up. */
export interface OpenTelemetryOptions {
  /** The tracer to use (default: `trace.getTracer('seamchart')` of the registered provider). */
  readonly tracer?: OtelApi.Tracer;
  /** What `gen_ai.request.model` says on model request spans. */
  readonly model?: string;
  /** The `@opentelemetry/api` module (default: imported on first use; it is an optional peer dependency). */
  readonly api?: Api;
}

/** The spans of one agent's run, by what they stand for. */
interface AgentSpans {
  readonly session: Span;
  turn?: Span | undefined;
  step?: Span | undefined;
  request?: Span | undefined;
  readonly calls: Map<string, Span>;
}

const TRACE_FLAGS_SAMPLED = 1;

/**
 * A plugin that records a run as OpenTelemetry spans through `@opentelemetry/api`: `session`,
 * `turn`, `step`, the model request (GenAI conventions), each tool call (`execute_tool`, parallel
 * calls as siblings), each seam a listener decided, each hook process; a denial, a failure or a cancel
 * sets an error status with its code. Processes started for a call (shell hooks, Bash) get
 * `TRACEPARENT`/`TRACESTATE`. With no SDK registered (a non-recording tracer) it registers nothing.
 * @param options the tracer, the model name, the API module
 * @example
 * seams.use(await openTelemetry({ model: 'gpt-4o-mini' }));
 */
export async function openTelemetry(options: OpenTelemetryOptions = {}): Promise<SeamPlugin> {
  let api = options.api;
  if (api === undefined) {
    try {
      api = await import('@opentelemetry/api');
    } catch (cause) {
      throw new Error(
        'openTelemetry() needs the `@opentelemetry/api` package: npm install @opentelemetry/api',
        {
          cause,
        },
      );
    }
  }
  return createTracingPlugin(api, options.tracer ?? api.trace.getTracer('seamchart'), options.model);
}

function createTracingPlugin(api: Api, tracer: OtelApi.Tracer, model: string | undefined): SeamPlugin {
  return {
    name: 'opentelemetry',
    apply(seams: Seams) {
      const probe = tracer.startSpan('seamchart.probe');
      const recording = probe.isRecording();
      probe.end();
      // The no-op tracer (no SDK registered): listening would cost time and record nothing.
      if (!recording) return;
      const agents = new Map<string, AgentSpans>();
      const under = (parent: Span | undefined) =>
        parent === undefined ? api.context.active() : api.trace.setSpan(api.context.active(), parent);
      const spansOf = (agentId: string): AgentSpans => {
        let spans = agents.get(agentId);
        if (spans === undefined) {
          spans = {
            session: tracer.startSpan('session', { attributes: { 'session.id': agentId } }, under(undefined)),
            calls: new Map(),
          };
          agents.set(agentId, spans);
        }
        return spans;
      };
      const placeSpan = (spans: AgentSpans, place: ProcessPlace): Span | undefined =>
        (place.callId === undefined ? undefined : spans.calls.get(place.callId)) ??
        spans.turn ??
        spans.session;

      seams.on(
        'agent/session-start',
        (ctx) => {
          const spans = spansOf(ctx.agent.id);
          ctx.agent.env?.addProcessEnv?.((place) => traceContextEnv(placeSpan(spans, place)));
        },
        { name: 'opentelemetry' },
      );
      seams.on(
        'session/event',
        (ctx) => {
          record(api, tracer, model, spansOf(ctx.agentId), ctx.event, under);
        },
        { name: 'opentelemetry' },
      );
      seams.on(
        'seam/decided',
        (ctx) => {
          if (ctx.agentId === undefined || ctx.decidedBy === 'default') return;
          const spans = spansOf(ctx.agentId);
          const parent =
            (ctx.callId === undefined ? undefined : spans.calls.get(ctx.callId)) ?? spans.step ?? spans.turn;
          tracer
            .startSpan(
              `seam ${ctx.seam}`,
              { attributes: { 'seam.name': ctx.seam, decided_by: ctx.decidedBy } },
              under(parent ?? spans.session),
            )
            .end();
        },
        { name: 'opentelemetry' },
      );
      seams.on(
        'agent/status',
        (ctx) => {
          if (ctx.status !== 'disposed' && ctx.status !== 'failed') return;
          const spans = agents.get(ctx.agentId);
          if (spans === undefined) return;
          endAll(api, spans, 'DISPOSED');
          if (ctx.status === 'failed')
            spans.session.setStatus({ code: api.SpanStatusCode.ERROR, message: 'failed' });
          spans.session.end();
          agents.delete(ctx.agentId);
        },
        { name: 'opentelemetry' },
      );
    },
  };
}

function record(
  api: Api,
  tracer: OtelApi.Tracer,
  model: string | undefined,
  spans: AgentSpans,
  event: LogEvent,
  under: (parent: Span | undefined) => OtelApi.Context,
): void {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'turn/start':
      spans.turn = tracer.startSpan(
        'turn',
        { attributes: { 'seamchart.turn': data.turn as number } },
        under(spans.session),
      );
      return;
    case 'step/start': {
      spans.step = tracer.startSpan(
        'step',
        { attributes: { 'seamchart.step': data.step as number } },
        under(spans.turn),
      );
      const attributes: OtelApi.Attributes = { 'gen_ai.operation.name': 'chat' };
      if (model !== undefined) attributes['gen_ai.request.model'] = model;
      spans.request = tracer.startSpan(
        model === undefined ? 'chat' : `chat ${model}`,
        { attributes },
        under(spans.step),
      );
      return;
    }
    case 'assistant/message': {
      const usage = data.usage as { inputTokens?: number; outputTokens?: number } | undefined;
      if (spans.request !== undefined) {
        if (usage?.inputTokens !== undefined)
          spans.request.setAttribute('gen_ai.usage.input_tokens', usage.inputTokens);
        if (usage?.outputTokens !== undefined)
          spans.request.setAttribute('gen_ai.usage.output_tokens', usage.outputTokens);
        spans.request.setAttribute('gen_ai.response.finish_reasons', [String(data.finish)]);
        spans.request.end();
        spans.request = undefined;
      }
      // Every call of the answer starts now, as a sibling under the step (the batch starts them in order).
      for (const block of data.content as { type: string; id?: string; name?: string }[]) {
        if (block.type !== 'tool-call' || block.id === undefined) continue;
        spans.calls.set(
          block.id,
          tracer.startSpan(
            `execute_tool ${block.name ?? ''}`.trim(),
            {
              attributes: {
                'gen_ai.operation.name': 'execute_tool',
                'gen_ai.tool.name': block.name ?? '',
                'gen_ai.tool.call.id': block.id,
              },
            },
            under(spans.step),
          ),
        );
      }
      return;
    }
    case 'tool/result': {
      const span = spans.calls.get(String(data.callId));
      if (span === undefined) return;
      const error = data.error as { code?: string; message?: string } | undefined;
      if (data.isError === true) {
        const code = error?.code ?? 'TOOL_ERROR';
        span.setAttribute('error.type', code);
        span.setStatus({
          code: api.SpanStatusCode.ERROR,
          message: `${code}: ${error?.message ?? ''}`.trim(),
        });
      }
      span.end();
      spans.calls.delete(String(data.callId));
      return;
    }
    case 'hook/result': {
      const now = Date.now();
      const durationMs = typeof data.durationMs === 'number' ? data.durationMs : 0;
      const parent =
        (typeof data.callId === 'string' ? spans.calls.get(data.callId) : undefined) ?? spans.turn;
      const attributes: OtelApi.Attributes = {
        'seamchart.hook.handler_id': String(data.handlerId),
        'seamchart.hook.event': String(data.event),
        'seamchart.hook.decision': String(data.decision),
        'seamchart.hook.timed_out': data.decision === 'timeout',
      };
      if (typeof data.exitCode === 'number') attributes['process.exit.code'] = data.exitCode;
      const span = tracer.startSpan(
        `hook ${String(data.event)}`,
        { attributes, startTime: now - durationMs },
        under(parent),
      );
      if (data.decision === 'error' || data.decision === 'timeout')
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: String(data.decision) });
      span.end(now);
      return;
    }
    case 'step/end':
      spans.request?.end();
      spans.request = undefined;
      spans.step?.end();
      spans.step = undefined;
      return;
    case 'turn/end': {
      const reason = data.reason as TurnEndReason;
      const failed = failureCodeOf(reason);
      endAll(api, spans, failed ?? 'TURN_ENDED');
      if (spans.turn !== undefined) {
        spans.turn.setAttribute('seamchart.turn.end', reason.kind);
        if (failed !== undefined) spans.turn.setStatus({ code: api.SpanStatusCode.ERROR, message: failed });
        spans.turn.end();
        spans.turn = undefined;
      }
      return;
    }
    default:
      return;
  }
}

function failureCodeOf(reason: TurnEndReason): string | undefined {
  if (reason.kind === 'error') return reason.code ?? 'ERROR';
  if (reason.kind === 'aborted' || reason.kind === 'disposed' || reason.kind === 'interrupted')
    return reason.kind.toUpperCase();
  return undefined;
}

// Spans still open when their turn or agent ends: closed with an error naming why.
function endAll(api: Api, spans: AgentSpans, code: string): void {
  for (const span of spans.calls.values()) {
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: code });
    span.end();
  }
  spans.calls.clear();
  for (const span of [spans.request, spans.step]) span?.end();
  spans.request = undefined;
  spans.step = undefined;
}

/** W3C trace context of a span, as a child process's environment carries it. */
function traceContextEnv(span: Span | undefined): Record<string, string> | undefined {
  if (span === undefined) return undefined;
  const context = span.spanContext();
  const flags = (context.traceFlags & TRACE_FLAGS_SAMPLED).toString(16).padStart(2, '0');
  const env: Record<string, string> = { TRACEPARENT: `00-${context.traceId}-${context.spanId}-${flags}` };
  const state = context.traceState?.serialize();
  if (state) env.TRACESTATE = state;
  return env;
}
