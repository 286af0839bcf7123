import { openTelemetry, type SeamPlugin } from '../index.js';
import type { CliIO } from './command.js';
import { packageVersion } from './version.js';

/** The run's tracing: the plugin to use and how to flush what it recorded. */
export interface CliTelemetry {
  readonly plugin: SeamPlugin;
  shutdown(): Promise<void>;
}

/**
 * Exports the run's spans over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` (or the traces-only
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set; only then are the SDK and the exporter loaded.
 * @param io the command's environment
 * @param model what model request spans name as `gen_ai.request.model`
 */
export async function startTelemetry(
  io: CliIO,
  model: string | undefined,
): Promise<CliTelemetry | undefined> {
  const base = io.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const traces = io.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (!base && !traces) return undefined;
  const url = traces || `${base!.replace(/\/+$/, '')}/v1/traces`;
  let modules: [
    typeof import('@opentelemetry/api'),
    typeof import('@opentelemetry/sdk-trace-base'),
    typeof import('@opentelemetry/exporter-trace-otlp-http'),
  ];
  try {
    modules = await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/exporter-trace-otlp-http'),
    ]);
  } catch (cause) {
    throw new Error(
      'OTEL_EXPORTER_OTLP_ENDPOINT is set: install @opentelemetry/api, @opentelemetry/sdk-trace-base and @opentelemetry/exporter-trace-otlp-http to export traces',
      { cause },
    );
  }
  const [api, sdk, otlp] = modules;
  const provider = new sdk.BasicTracerProvider({
    spanProcessors: [new sdk.BatchSpanProcessor(new otlp.OTLPTraceExporter({ url }))],
  });
  const plugin = await openTelemetry({
    api,
    tracer: provider.getTracer('seamchart', packageVersion()),
    ...(model === undefined ? {} : { model }),
  });
  return { plugin, shutdown: () => provider.shutdown() };
}
