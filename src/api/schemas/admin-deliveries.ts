import { z } from 'zod';
import { cursorParam, instantBound, limitParam, nextCursor, uuid } from './common.js';
import { attempt, attemptsNextAfter, delivery, deliveryParams } from './deliveries.js';

// The operator's view of deliveries over the internal admin API (`herald admin deliveries …`): every integrator's,
// with the integrator and the Temporal workflow that runs each.

export const adminDelivery = delivery
  .extend({
    integratorId: uuid,
    workflowId: z.string().describe('the Temporal workflow running this delivery (`delivery:<id>`)'),
    namespace: z.string().describe('its Temporal namespace'),
  })
  .meta({ id: 'AdminDelivery' });

export const adminDeliveryWithAttempts = adminDelivery
  .extend({ attempts: z.array(attempt).describe('its first 100 attempts, oldest first'), attemptsNextAfter })
  .meta({ id: 'AdminDeliveryWithAttempts' });

export const adminDeliveryPage = z
  .object({ deliveries: z.array(adminDelivery), nextCursor })
  .meta({ id: 'AdminDeliveryPage' });

export const adminDeliveriesQuery = z.strictObject({
  status: delivery.shape.status.optional(),
  subscriptionId: uuid.optional(),
  integratorId: uuid.optional(),
  since: instantBound('ceil').optional().describe('only deliveries created at or after this time'),
  cursor: cursorParam.optional(),
  limit: limitParam.describe('page size, 1 to 250 (default 100)'),
});

export const adminDeliveryParams = deliveryParams;
export type AdminDelivery = z.infer<typeof adminDelivery>;
export type AdminDeliveryWithAttempts = z.infer<typeof adminDeliveryWithAttempts>;
export type AdminDeliveryPage = z.infer<typeof adminDeliveryPage>;
export type AdminDeliveryFilters = Omit<z.input<typeof adminDeliveriesQuery>, 'cursor' | 'limit'>;
