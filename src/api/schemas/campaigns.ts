import { z } from 'zod';
import { bodyInstantBound, dateTime, uuid } from './common.js';

/** Statuses a campaign may re-deliver: a campaign never touches pending or succeeded deliveries. */
const recoverableStatus = z.enum(['failed', 'cancelled']);

export const DEFAULT_RECOVERY_RATE = 5;

export const recoverBody = z
  .strictObject({
    // Both bounds select stored (whole-millisecond) instants: a finer fraction moves up (common.ts, instantBound).
    since: bodyInstantBound('ceil').describe('re-deliver deliveries created at or after this time'),
    until: bodyInstantBound('ceil')
      .optional()
      .describe(
        '…and before this time, which must be after since (else 400 invalid_window: JSON Schema cannot compare two ' +
          'members, so the schema alone does not say it); omitted: before the first request for this window (fixed then)',
      ),
    statuses: z
      .array(recoverableStatus)
      .min(1)
      .max(2)
      .refine((s) => new Set(s).size === s.length, 'must not repeat a status')
      .meta({ uniqueItems: true })
      .default(['failed'])
      .describe('which terminal deliveries to re-deliver; default ["failed"]'),
    ratePerSecond: z
      .number()
      .min(0.1)
      .max(100)
      .default(DEFAULT_RECOVERY_RATE)
      .describe(
        `re-deliveries asked for per second, default ${DEFAULT_RECOVERY_RATE}; not part of the campaign's identity`,
      ),
  })
  .meta({ id: 'RecoverRequest' });

export const campaign = z
  .object({
    id: uuid.describe('derived from the subscription, the window and the statuses: the same window is one campaign'),
    subscriptionId: uuid,
    since: dateTime,
    until: dateTime,
    statuses: z.array(recoverableStatus),
    ratePerSecond: z.number(),
    state: z
      .enum(['running', 'paused', 'cancelled', 'completed'])
      .describe('cancelled: no more re-deliveries are asked for (those asked for still finish)'),
    total: z.number().int().describe('deliveries in the window when the campaign started'),
    requested: z.number().int().describe('re-deliveries asked for so far'),
    succeeded: z.number().int().describe('of those, attempts that succeeded'),
    failed: z.number().int().describe('of those, attempts that did not succeed'),
    skipped: z
      .number()
      .int()
      .describe('of those, no attempt made (subscription deleted, delivery cancelled meanwhile)'),
    done: z.number().int().describe('succeeded + failed + skipped'),
  })
  .meta({ id: 'RecoveryCampaign' });

export const campaignParams = z.strictObject({ campaign_id: uuid });

export const deliverySummary = z
  .object({
    subscriptionId: uuid,
    counts: z
      .object({
        pending: z.number().int(),
        succeeded: z.number().int(),
        failed: z.number().int(),
        cancelled: z.number().int(),
      })
      .describe(
        'recorded deliveries by status (a delivery is recorded by its first attempt); a count equal to countLimit ' +
          'means at least that many',
      ),
    countLimit: z.number().int().describe('where each count stops (HERALD_SUMMARY_COUNT_LIMIT): the read is bounded'),
    oldestPending: z
      .object({ id: uuid, createdAt: dateTime, attemptCount: z.number().int(), nextAttemptAt: dateTime.nullable() })
      .nullable()
      .describe('the oldest delivery still waiting to be delivered; null when none is'),
  })
  .meta({ id: 'DeliverySummary' });

export type RecoverInput = z.input<typeof recoverBody>;
export type RecoveryCampaign = z.infer<typeof campaign>;
export type DeliverySummary = z.infer<typeof deliverySummary>;
