// Narrow wrappers that add spans and metrics around the hand-off and the webhook POST without reshaping them.
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { FanOut } from '../delivery/index.js';
import type { WebhookHttpClient } from '../net/http-client.js';
import { currentTracing, heraldTracer } from './tracing.js';

/**
 * The hand-off (one workflow start per matching subscription, before the event is stored) as a span. The route
 * counts the deliveries, once the event is stored as new: a re-submission starts nothing twice.
 */
export function traceFanOut(fanOut: FanOut): FanOut {
  return {
    handOff: (event, options) =>
      heraldTracer().startActiveSpan(
        'herald.hand-off',
        { attributes: { 'herald.event_id': event._id } },
        async (span) => {
          try {
            const started = await fanOut.handOff(event, options);
            span.setAttribute('herald.deliveries', started.length);
            return started;
          } catch (err) {
            span.setStatus({ code: SpanStatusCode.ERROR });
            throw err;
          } finally {
            span.end();
          }
        },
      ),
  };
}

/** The POST of an attempt as a client span, child of the activity's span (tracing on only). */
export function traceWebhookHttp(http: WebhookHttpClient): WebhookHttpClient {
  if (!currentTracing()) return http;
  return {
    close: () => http.close(),
    post: (url, headers, body, options) =>
      heraldTracer().startActiveSpan(
        'webhook POST',
        {
          kind: SpanKind.CLIENT,
          attributes: { 'http.request.method': 'POST', 'server.address': new URL(url).hostname },
        },
        async (span) => {
          try {
            const result = await http.post(url, headers, body, options);
            span.setAttribute('herald.attempt.outcome', result.outcome);
            if (result.statusCode !== null) span.setAttribute('http.response.status_code', result.statusCode);
            if (result.outcome !== 'succeeded') span.setStatus({ code: SpanStatusCode.ERROR });
            return result;
          } finally {
            span.end();
          }
        },
      ),
  };
}
