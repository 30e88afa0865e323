// Traces: one delivery through the real stack with tracing on (in-memory exporter) is one trace, from the ingest
// request through the hand-off, the workflow start, the workflow and its activity to the POST to the receiver.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { setupTracing, type Tracing } from '../../src/telemetry/tracing.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';

describe('traces (OpenTelemetry, in-memory exporter)', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let s: DeliveryStack;
  before(async () => {
    // Before the stack: the Temporal client and worker take their interceptors from the tracing set up here.
    tracing =
      setupTracing({ processor: new SimpleSpanProcessor(exporter), serviceName: 'herald-test' }) ??
      assert.fail('tracing');
    s = await startDeliveryStack();
  });
  after(async () => {
    await s?.stop();
    await tracing?.shutdown();
  });

  /** The span and its ancestors, nearest first. */
  function ancestry(span: ReadableSpan, spans: readonly ReadableSpan[]): ReadableSpan[] {
    const byId = new Map(spans.map((x) => [x.spanContext().spanId, x]));
    const chain = [span];
    for (let p = span.parentSpanId; p !== undefined;) {
      const parent = byId.get(p);
      if (!parent) break;
      chain.push(parent);
      p = parent.parentSpanId;
    }
    return chain;
  }

  it('follows one delivery from the ingest request to the POST, in one trace', async () => {
    await s.subscribe('/traced');
    const eventId = await s.publish();
    await eventually(async () => ((await s.deliveriesOf(eventId))[0]?.status === 'succeeded' ? true : undefined));

    const chain = await eventually(() => {
      const spans = exporter.getFinishedSpans();
      const post = spans.find((x) => x.name === 'webhook POST');
      const chain = post ? ancestry(post, spans) : [];
      // Workflow spans arrive through the worker's sink: wait until the chain reaches the request.
      return chain.at(-1)?.name === 'POST /internal/v1/events' ? chain : undefined;
    });
    assert.deepEqual(chain.map((x) => x.name).reverse(), [
      'POST /internal/v1/events',
      'herald.hand-off',
      'StartWorkflow:deliveryWorkflow',
      'RunWorkflow:deliveryWorkflow',
      'StartActivity:runAttempt',
      'RunActivity:runAttempt',
      'webhook POST',
    ]);
    assert.equal(new Set(chain.map((x) => x.spanContext().traceId)).size, 1, 'one trace');
    const [post] = chain;
    const request = chain.at(-1)!;
    assert.equal(post!.attributes['http.response.status_code'], 204);
    assert.equal(post!.attributes['herald.attempt.outcome'], 'succeeded');
    assert.equal(request.attributes['http.route'], '/internal/v1/events');
    assert.equal(request.attributes['http.response.status_code'], 201);
    assert.equal(chain[5]!.attributes['herald.event_id'], eventId);
  });
});
