import { z } from 'zod';
import { pauseReasons } from '../../domain/delivery-vocabulary.js';
import { heraldEventTypes, subscribableEventTypes } from '../../domain/event-types.js';
import { MAX_CALLBACK_URL_LENGTH } from '../../net/callback-url.js';
import { CALLBACK_URL_PATTERN } from '../../net/callback-url-pattern.js';
import { VIEW_KEYS } from '../../store/signing-key-reads.js';
import { cursorParam, dateTime, limitParam, nextCursor, uuid } from './common.js';

export const MAX_DESCRIPTION_LENGTH = 256;

const subscriptionStatus = z
  .enum(['enabled', 'disabled'])
  .describe('enabled: receives new deliveries; disabled: receives none, scheduled attempts end as cancelled');

/** What a subscription is: the two an integrator sets with PATCH, or paused (by /pause, a 410 or sustained failure). */
const subscriptionState = z
  .enum(['enabled', 'disabled', 'paused'])
  .describe(
    'enabled: receives new deliveries; disabled: receives none, scheduled attempts end as cancelled; paused: new ' +
      'deliveries are made and held with those already waiting, none is attempted until POST …/resume',
  );

/** How a subscription's deliveries are ordered (docs/deliveries.md, "Ordered delivery"). */
export const subscriptionOrdering = z.enum(['fifo', 'none']).meta({
  id: 'SubscriptionOrdering',
  description:
    "fifo: the subscription's deliveries reach the receiver one at a time in ingest order: a delivery's first " +
    'request goes only after the previous delivery of the subscription has ended (succeeded, cancelled, or failed ' +
    'after its whole retry schedule); one that fails after its whole schedule pauses the subscription (pausedReason ' +
    'delivery_failed) and POST …/resume releases the rest in order. none: no order is guaranteed (attempts run in ' +
    'parallel, retries overtake). A change applies to deliveries ingested after it; those in flight finish in the ' +
    'mode they were created in',
});

const publicKeyHex = z
  .string()
  .regex(/^0[23][0-9a-f]{64}$/)
  .describe('compressed SEC1 P-256 public key: 66 lowercase hex digits, no `0x` prefix (§2.4)');

/** The spec's subscribable enum (§6.1), exactly as given. */
const specSubscribableType = z
  .enum(subscribableEventTypes)
  .meta({ id: 'SubscribableEventType', description: 'the subscribable event types of the interface (§6.1)' });

/**
 * Herald's own event types, a second enum beside the spec's (never inside it): delivered only to a subscription that
 * names them, never to one subscribed to all types, never listed with the integrator's events.
 */
export const heraldEventType = z.enum(heraldEventTypes).meta({
  id: 'HeraldEventType',
  description:
    "Herald's extension, not in the interface: webhook.subscription_paused (Herald paused one of the integrator's " +
    'subscriptions) is delivered only to a subscription that names it, and never listed by GET /v1/query/events',
});

/** A type a subscription can name: the spec's or Herald's; the error names the value that is neither. */
const nameableType = z.union([specSubscribableType, heraldEventType], {
  error: (issue) => `${JSON.stringify(issue.input)} is not a subscribable event type`,
});

/** Omitted or empty means every type of the spec's subscribable enum (§6.2); a type given twice is a 400 (uniqueItems). */
const eventTypesInput = z
  .array(nameableType)
  .max(100)
  .refine((types) => new Set(types).size === types.length, 'must not repeat an event type')
  .meta({ uniqueItems: true })
  .describe(
    "event types to deliver, each at most once; omitted or [] = all of the interface's subscribable types (Herald's " +
      'own types only when named)',
  );

const description = z
  .string()
  .max(MAX_DESCRIPTION_LENGTH)
  .describe(`free text for the integrator, at most ${MAX_DESCRIPTION_LENGTH} characters`);

/**
 * Checked by the callback-URL policy (src/net/callback-url.ts), which names the broken rule in a 400
 * `invalid_callback_url`. The document declares every rule that needs no DNS lookup as a pattern
 * (src/net/callback-url-pattern.ts): a string it matches passes them all. That the host must resolve to public
 * addresses only, and that internationalised names are accepted too, is in the description.
 */
const callbackUrl = z
  .string()
  .meta({
    format: 'uri',
    minLength: 9,
    maxLength: MAX_CALLBACK_URL_LENGTH,
    pattern: CALLBACK_URL_PATTERN,
    examples: ['https://hooks.example.com/herald'],
  })
  .describe(
    `public HTTPS URL (§6.3), at most ${MAX_CALLBACK_URL_LENGTH} characters: a DNS host name of two labels or more ` +
      '(no IP address, no special-use or internal name such as localhost or *.test), an optional port, no ' +
      'credentials or fragment. The host must resolve to public addresses only. Internationalised names ' +
      '(bücher.example or its xn-- form) are accepted as well, though the pattern leaves them out. A URL that ' +
      'breaks a rule is 400 invalid_callback_url naming it; stored and shown in WHATWG-normalised form',
  );

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
      .array(z.union([specSubscribableType, heraldEventType]))
      .describe("[] = subscribed to every type of the interface's subscribable enum (not to Herald's own types)"),
    description: z.string().nullable(),
    status: subscriptionState,
    pausedReason: z
      .enum(pauseReasons)
      .nullable()
      .describe(
        'while paused: manual (POST …/pause), endpoint_gone (a 410 answer), endpoint_unhealthy, delivery_failed (a ' +
          'delivery of a fifo subscription failed after its whole retry schedule); else null',
      ),
    pausedAt: dateTime.nullable().describe('when it was paused; null unless paused'),
    ordering: subscriptionOrdering,
    keyId: uuid.describe('id of the active signing key'),
    publicKey: publicKeyHex.describe('the active signing key: compressed SEC1 P-256, 66 lowercase hex digits'),
    createdAt: dateTime,
    updatedAt: dateTime,
    keys: z
      .array(subscriptionKey)
      .describe(
        `the subscription's newest signing keys, at most ${VIEW_KEYS} (the active one always among them), oldest ` +
          'first, so deliveries signed shortly before a rotation verify; GET …/keys lists every key it ever had',
      ),
  })
  .meta({ id: 'Subscription' });

export const subscriptionKeyPage = z
  .object({
    keys: z.array(subscriptionKey).describe('newest first: the active key, then the ones it replaced'),
    nextCursor,
  })
  .meta({ id: 'SubscriptionKeyPage' });

export const listKeysQuery = z.strictObject({ cursor: cursorParam.optional(), limit: limitParam });

export const subscriptionPage = z
  .object({ subscriptions: z.array(subscription), nextCursor })
  .meta({ id: 'SubscriptionPage' });

export const createSubscriptionBody = z
  .strictObject({
    url: callbackUrl,
    eventTypes: eventTypesInput.optional(),
    description: description.optional(),
    // Not .default('none') nor a `default` keyword: either makes generated clients require it (the route fills it in).
    ordering: subscriptionOrdering.optional().describe('omitted: none'),
  })
  .meta({ id: 'CreateSubscription' });

export const updateSubscriptionBody = z
  .strictObject({
    url: callbackUrl.optional(),
    eventTypes: eventTypesInput.optional(),
    description: description.nullable().optional().describe('null clears it'),
    status: subscriptionStatus.optional(),
    ordering: subscriptionOrdering.optional().describe('applies to deliveries ingested from now on'),
  })
  .refine((body) => Object.values(body).some((v) => v !== undefined), {
    message: 'give at least one of url, eventTypes, description, status, ordering',
  })
  .meta({ id: 'UpdateSubscription', minProperties: 1 });

export const listSubscriptionsQuery = z.strictObject({
  status: subscriptionState.optional(),
  cursor: cursorParam.optional(),
  limit: limitParam,
});

export const subscriptionParams = z.strictObject({ subscription_id: uuid });

/** A subscription as the API answers it (§2.4 and the decisions in docs/subscriptions.md). */
export type Subscription = z.infer<typeof subscription>;
export type SubscriptionKey = z.infer<typeof subscriptionKey>;
export type SubscriptionPage = z.infer<typeof subscriptionPage>;
export type SubscriptionKeyPage = z.infer<typeof subscriptionKeyPage>;
export type CreateSubscriptionInput = z.input<typeof createSubscriptionBody>;
export type UpdateSubscriptionInput = z.input<typeof updateSubscriptionBody>;
export type SubscriptionStatus = z.infer<typeof subscriptionStatus>;
export type SubscriptionState = z.infer<typeof subscriptionState>;
export type SubscriptionOrdering = z.infer<typeof subscriptionOrdering>;
