import { z } from 'zod';
import { subscribableEventTypes } from '../../domain/event-types.js';
import { cursorParam, dateTime, limitParam, nextCursor, uuid } from './common.js';

export const MAX_DESCRIPTION_LENGTH = 256;

const subscriptionStatus = z
  .enum(['enabled', 'disabled'])
  .describe('enabled: receives new deliveries; disabled: receives none, scheduled attempts end as cancelled');

const publicKeyHex = z
  .string()
  .regex(/^0[23][0-9a-f]{64}$/)
  .describe('compressed SEC1 P-256 public key: 66 lowercase hex digits, no `0x` prefix (§2.4)');

/** A request value: one of the subscribable types (§6.1), the error naming the value that is not. */
const subscribableType = z.enum(subscribableEventTypes, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a subscribable event type`,
});

/** Omitted or empty means every subscribable type (§6.2); the route drops duplicates (storedEventTypes). */
const eventTypesInput = z
  .array(subscribableType)
  .max(100)
  .describe('event types to deliver; omitted or [] = all subscribable types; duplicates are removed');

const description = z
  .string()
  .max(MAX_DESCRIPTION_LENGTH)
  .describe(`free text for the integrator, at most ${MAX_DESCRIPTION_LENGTH} characters`);

const callbackUrl = z
  .string()
  .describe('public HTTPS URL (§6.3); stored and shown in WHATWG-normalised form; at most 2048 characters');

export const subscriptionKey = z
  .object({
    keyId: uuid.describe('the X-Service-Webhook-Key-Id of deliveries signed with this key'),
    publicKey: publicKeyHex,
    status: z.enum(['active', 'inactive']).describe('active: signs new attempts; inactive: replaced by a rotation'),
    createdAt: dateTime,
  })
  .meta({ id: 'SubscriptionKey' });

export const subscription = z
  .object({
    id: uuid,
    url: z.string().describe('the callback URL, WHATWG-normalised'),
    eventTypes: z
      .array(z.enum(subscribableEventTypes))
      .describe('[] = subscribed to every subscribable type, including ones added later'),
    description: z.string().nullable(),
    status: subscriptionStatus,
    keyId: uuid.describe('id of the active signing key'),
    publicKey: publicKeyHex.describe('the active signing key: compressed SEC1 P-256, 66 lowercase hex digits'),
    createdAt: dateTime,
    updatedAt: dateTime,
    keys: z
      .array(subscriptionKey)
      .describe('every signing key of the subscription, oldest first, so deliveries signed before a rotation verify'),
  })
  .meta({ id: 'Subscription' });

export const subscriptionPage = z
  .object({ subscriptions: z.array(subscription), nextCursor })
  .meta({ id: 'SubscriptionPage' });

export const createSubscriptionBody = z
  .strictObject({ url: callbackUrl, eventTypes: eventTypesInput.optional(), description: description.optional() })
  .meta({ id: 'CreateSubscription' });

export const updateSubscriptionBody = z
  .strictObject({
    url: callbackUrl.optional(),
    eventTypes: eventTypesInput.optional(),
    description: description.nullable().optional().describe('null clears it'),
    status: subscriptionStatus.optional(),
  })
  .refine((body) => Object.values(body).some((v) => v !== undefined), {
    message: 'give at least one of url, eventTypes, description, status',
  })
  .meta({ id: 'UpdateSubscription' });

export const listSubscriptionsQuery = z.strictObject({
  status: subscriptionStatus.optional(),
  cursor: cursorParam.optional(),
  limit: limitParam,
});

export const subscriptionParams = z.strictObject({ subscription_id: uuid });

/** A subscription as the API answers it (§2.4 and the decisions in docs/subscriptions.md). */
export type Subscription = z.infer<typeof subscription>;
export type SubscriptionKey = z.infer<typeof subscriptionKey>;
export type SubscriptionPage = z.infer<typeof subscriptionPage>;
export type CreateSubscriptionInput = z.input<typeof createSubscriptionBody>;
export type UpdateSubscriptionInput = z.input<typeof updateSubscriptionBody>;
export type SubscriptionStatus = z.infer<typeof subscriptionStatus>;
