// The Temporal SDK logger wrapper: what it learns from a run's first activation, how it names lines by workflow id
// or run id, that it drops lines below its level before any work, and that what it remembers is bounded.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Logger, LogLevel, LogMetadata } from '@temporalio/worker';
import {
  DELIVERY_LOG_IDS_LIMIT,
  rememberDeliveryIds,
  rememberedDeliveries,
  deliveryIdsOf,
} from '../../src/telemetry/delivery-log-ids.js';
import { withDeliveryIds } from '../../src/telemetry/temporal-logger.js';

const json = (v: unknown) => ({ metadata: {}, data: new TextEncoder().encode(JSON.stringify(v)) });

function collecting(): { logger: Logger; lines: { level: LogLevel; message: string; meta?: LogMetadata }[] } {
  const lines: { level: LogLevel; message: string; meta?: LogMetadata }[] = [];
  const log = (level: LogLevel, message: string, meta?: LogMetadata) => void lines.push({ level, message, meta });
  const at = (level: LogLevel) => (message: string, meta?: LogMetadata) => log(level, message, meta);
  return {
    lines,
    logger: { log, trace: at('TRACE'), debug: at('DEBUG'), info: at('INFO'), warn: at('WARN'), error: at('ERROR') },
  };
}

describe('Temporal SDK lines about a delivery', () => {
  it('learns the ids from the first activation and adds them to lines naming the workflow or the run', () => {
    const { logger, lines } = collecting();
    const log = withDeliveryIds(logger, 'DEBUG');
    log.trace('Got workflow activation', {
      runId: 'run-1',
      jobs: [
        {
          initializeWorkflow: {
            workflowId: 'delivery:d-1',
            arguments: [json({ deliveryId: 'd-1', firstAttemptNumber: 3, actor: 'manual', followSchedule: false })],
            searchAttributes: { indexedFields: { HeraldSubscriptionId: json('s-1'), HeraldIntegratorId: json('i-1') } },
            memo: { fields: { eventId: json('e-1') } },
          },
        },
      ],
    });
    assert.equal(lines.length, 0, 'a TRACE line is below DEBUG: dropped');
    log.debug('Completed activation', { runId: 'run-1', sdkComponent: 'worker' });
    log.warn('Workflow failed', { workflowId: 'delivery:d-1', runId: 'run-1' });
    log.info('Worker state changed', { state: 'RUNNING' });
    const ids = { deliveryId: 'd-1', eventId: 'e-1', subscriptionId: 's-1', integratorId: 'i-1', attemptNumber: 3 };
    assert.deepEqual(lines[0]!.meta, { ...ids, runId: 'run-1', sdkComponent: 'worker' });
    assert.deepEqual(lines[1]!.meta, { ...ids, workflowId: 'delivery:d-1', runId: 'run-1' });
    assert.deepEqual(lines[2]!.meta, { state: 'RUNNING' }, 'a line about no delivery is left as it is');

    // An attempt moves the run's attempt number; a line's own fields win over what is remembered.
    rememberDeliveryIds({ deliveryId: 'd-1', attemptNumber: 4 }, 'run-1');
    log.debug('Activity completed', { workflowId: 'delivery:d-1', attemptNumber: 5 });
    log.debug('Got activity task', { start: { workflowExecution: { workflowId: 'delivery:d-1', runId: 'run-1' } } });
    assert.equal(lines[3]!.meta!.attemptNumber, 5);
    assert.equal(lines[4]!.meta!.attemptNumber, 4);
    assert.equal(lines[4]!.meta!.eventId, 'e-1');
  });

  it('names a delivery it has not learnt by its workflow id, and forgets the oldest beyond its bound', () => {
    const { logger, lines } = collecting();
    withDeliveryIds(logger, 'TRACE').error('Failed to process Workflow Activation', { workflowId: 'delivery:new' });
    assert.equal(lines[0]!.meta!.deliveryId, 'new');
    rememberDeliveryIds({ deliveryId: 'first', eventId: 'e' }, 'run-first');
    for (let i = 0; i < DELIVERY_LOG_IDS_LIMIT; i++) rememberDeliveryIds({ deliveryId: `d${i}` }, `r${i}`);
    assert.equal(rememberedDeliveries(), DELIVERY_LOG_IDS_LIMIT);
    assert.equal(deliveryIdsOf({ runId: 'run-first' }), undefined);
    assert.deepEqual(deliveryIdsOf({ deliveryId: 'first' }), { deliveryId: 'first' }, 'known by id only');
  });

  it("names the run of a forwarded core line from its text, keeping the core's own eventId as coreEventId", () => {
    const { logger, lines } = collecting();
    const log = withDeliveryIds(logger, 'WARN');
    const runId = '01a2099b-102b-7cfb-8e82-62d73d35eeb4';
    rememberDeliveryIds({ deliveryId: 'd-core', eventId: 'e-core', attemptNumber: 2 }, runId);
    const message = `[TMPRL1104] ${runId}:4:1 Workflow task duration exceeded 5 seconds.`;
    log.warn(message, { sdkComponent: 'core', eventId: 4, attempt: 1 });
    assert.deepEqual(lines[0]!.meta, {
      sdkComponent: 'core',
      deliveryId: 'd-core',
      eventId: 'e-core',
      coreEventId: 4,
      attempt: 1,
      attemptNumber: 2,
    });
    // A run id in the text of a line that is not the core's, or an unknown run, adds nothing.
    log.warn(`retrying ${runId}`, { sdkComponent: 'worker' });
    log.warn('[TMPRL1104] 11111111-2222-4333-8444-555555555555:4:1 Workflow task …', { sdkComponent: 'core' });
    assert.deepEqual([lines[1]!.meta, lines[2]!.meta], [{ sdkComponent: 'worker' }, { sdkComponent: 'core' }]);
  });
});
