// The Temporal SDK's own log lines about an activity (started, completed, failed, retried) carry the ids of the
// delivery it works on, as Herald's lines do (docs/operations-metrics.md: logs): an activity interceptor adds them.
import { Context, type Context as ActivityContext } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { deliveryIdOfWorkflow, rememberDeliveryIds, type DeliveryLogIds } from './delivery-log-ids.js';

type Fields = Record<string, unknown>;
const extraFields = new WeakMap<ActivityContext, Fields>();

// Also remembered for the SDK's own lines about the delivery's run (src/telemetry/temporal-logger.ts).
const add = (ctx: ActivityContext, fields: Fields): void => {
  extraFields.set(ctx, { ...extraFields.get(ctx), ...fields });
  const execution = ctx.info.workflowExecution;
  const deliveryId = deliveryIdOfWorkflow(execution?.workflowId);
  if (deliveryId) rememberDeliveryIds({ ...(fields as Partial<DeliveryLogIds>), deliveryId }, execution?.runId);
};

/** From the activity itself, once it knows them (e.g. the ids read from the delivery); a no-op outside a worker. */
export function addActivityLogFields(fields: Fields): void {
  let ctx: ActivityContext;
  try {
    ctx = Context.current();
  } catch {
    return; // called outside an activity (unit and integration tests call activities directly)
  }
  add(ctx, fields);
}

/** What the activity's input says: the delivery, the attempt number, and the hand-off's ids on a first attempt. */
function fieldsOfInput(arg: unknown): Fields {
  if (typeof arg !== 'object' || arg === null) return {};
  const a = arg as { deliveryId?: unknown; attemptNumber?: unknown; handOff?: Fields };
  const { eventId, subscriptionId, integratorId } = a.handOff ?? {};
  return Object.fromEntries(
    Object.entries({
      deliveryId: a.deliveryId,
      attemptNumber: a.attemptNumber,
      eventId,
      subscriptionId,
      integratorId,
    }).filter(([, v]) => typeof v === 'string' || typeof v === 'number'),
  );
}

export const deliveryLogInterceptors: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    execute(input, next) {
      add(ctx, fieldsOfInput(input.args[0]));
      return next(input);
    },
  },
  outbound: {
    getLogAttributes(attributes, next) {
      const deliveryId = deliveryIdOfWorkflow(ctx.info.workflowExecution?.workflowId);
      return next({ ...attributes, ...(deliveryId ? { deliveryId } : {}), ...extraFields.get(ctx) });
    },
  },
});
