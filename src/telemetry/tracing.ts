// OpenTelemetry traces, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (or a test passes a span processor). One
// trace runs from the ingest request through the hand-off, the workflow start, the workflow and each attempt's POST.
import { trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface Tracing {
  readonly processor: SpanProcessor;
  readonly resource: Resource;
  shutdown(): Promise<void>;
}

let current: Tracing | null = null;

/** The process's tracing, or null when off: interceptors and spans are then not installed at all. */
export const currentTracing = (): Tracing | null => current;

/** Herald's own spans (request, hand-off, POST); a no-op tracer while tracing is off. */
export const heraldTracer = (): Tracer => trace.getTracer('herald');

/**
 * Installs the global tracer provider (W3C trace context, AsyncLocalStorage context) once per process, before the
 * Temporal client and worker are created. Returns null, installing nothing, when there is nowhere to export to.
 */
export function setupTracing(options: {
  endpoint?: string | undefined;
  processor?: SpanProcessor;
  serviceName: string;
}): Tracing | null {
  if (current) return current;
  const processor =
    options.processor ??
    (options.endpoint
      ? new BatchSpanProcessor(new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/+$/, '')}/v1/traces` }))
      : null);
  if (!processor) return null;
  const resource = new Resource({ 'service.name': options.serviceName });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  current = {
    processor,
    resource,
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      current = null;
    },
  };
  return current;
}
