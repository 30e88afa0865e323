// Temporal's OpenTelemetry interceptors (@temporalio/interceptors-opentelemetry), installed only while tracing is on.
import { createRequire } from 'node:module';
import type { ClientInterceptors } from '@temporalio/client';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';
import { currentTracing } from './tracing.js';

/** The client's start/signal/update calls as spans, their context passed to the workflow in its headers. */
export function tracingClientInterceptors(): ClientInterceptors | undefined {
  return currentTracing() ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
}

/**
 * Workflow and activity interceptors plus the sink that exports workflow spans. The workflow interceptor module
 * must be inside the workflow bundle, so a tracing worker bundles its workflows at start-up (no pre-built bundle).
 */
export function tracingWorkerOptions(): Pick<WorkerOptions, 'interceptors' | 'sinks'> | undefined {
  const tracing = currentTracing();
  if (!tracing) return undefined;
  const require = createRequire(import.meta.url);
  return {
    interceptors: {
      workflowModules: [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')],
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: { exporter: makeWorkflowExporter(tracing.processor, tracing.resource) },
  };
}
