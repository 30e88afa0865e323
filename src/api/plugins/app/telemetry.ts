import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest, RouteHandlerMethod } from 'fastify';
import fp from 'fastify-plugin';
import { prometheusContentType } from 'prom-client';
import { createHeraldMetrics, disabledMetrics, type HeraldMetrics } from '../../../telemetry/metrics.js';
import { startMetricsServer, type MetricsServer } from '../../../telemetry/metrics-server.js';
import { currentTracing, heraldTracer } from '../../../telemetry/tracing.js';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: HeraldMetrics;
    /** The API's scrape address once listening, or null (HERALD_METRICS_PORT=off). */
    metricsUrl: () => string | null;
  }
}

/** Route pattern, never the URL: ids in paths must not become label values. */
const routeOf = (request: FastifyRequest): string => request.routeOptions.url ?? 'unmatched';

/**
 * Request metrics by route, the API's /metrics listener on its own port (docs/operations-metrics.md), and, while
 * tracing is on, one server span per request that is the active context of its handler.
 */
export const telemetryPlugin = fp<{ metrics?: HeraldMetrics }>(
  async (app: FastifyInstance, options) => {
    const port = app.config.HERALD_METRICS_PORT;
    const metrics = options.metrics ?? (port === null ? disabledMetrics : createHeraldMetrics());
    let server: MetricsServer | null = null;
    app.decorate('metrics', metrics);
    app.decorate('metricsUrl', () => server?.url ?? null);

    app.addHook('onResponse', async (request, reply) => {
      metrics.httpRequest(request.method, routeOf(request), reply.statusCode, reply.elapsedTime / 1000);
    });
    const registry = metrics.registry;
    if (port !== null && registry) {
      app.addHook('onReady', async () => {
        server = await startMetricsServer({
          setting: 'HERALD_METRICS_PORT',
          host: app.config.HERALD_METRICS_HOST,
          port,
          contentType: prometheusContentType,
          collect: () => registry.metrics(),
          onError: (err) => app.log.error({ err }, 'metrics collection failed'),
        });
      });
      app.addHook('onClose', async () => server?.close());
    }

    if (!currentTracing()) return;
    const spans = new WeakMap<FastifyRequest, Span>();
    app.addHook('onRequest', async (request) => {
      const parent = propagation.extract(context.active(), request.headers);
      const span = heraldTracer().startSpan(
        request.method,
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method } },
        parent,
      );
      spans.set(request, span);
    });
    // Body parsing leaves the request's async context, so each handler is run inside its request's span.
    app.addHook('onRoute', (route) => {
      const handler = route.handler as RouteHandlerMethod;
      route.handler = function (this: FastifyInstance, request, reply) {
        const span = spans.get(request);
        if (!span) return handler.call(this, request, reply);
        return context.with(trace.setSpan(context.active(), span), () => handler.call(this, request, reply));
      } as RouteHandlerMethod;
    });
    app.addHook('onResponse', async (request, reply) => {
      const span = spans.get(request);
      if (!span) return;
      span.updateName(`${request.method} ${routeOf(request)}`);
      span.setAttribute('http.route', routeOf(request));
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
  },
  { name: 'telemetry', dependencies: ['connections'] },
);
