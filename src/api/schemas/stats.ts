import { z } from 'zod';
import { integerParam, uuid } from './common.js';

export const statsQuery = z.strictObject({
  hours: integerParam(1, 168, 24).describe('how many hours, the current one last'),
});

export const statsParams = z.strictObject({ subscription_id: uuid });

const latency = z
  .object({
    avg: z.number().int().describe('mean, ms'),
    p50: z.number().int().describe('an upper bound of the median, ms (the edge of the bucket that holds it)'),
    p95: z.number().int().describe('an upper bound of the 95th percentile, ms (likewise)'),
    max: z.number().int().describe('the longest, ms'),
  })
  .nullable()
  .describe('of the attempts that made a request; null when none did');

const counts = {
  attempts: z.number().int().describe('attempts recorded (automatic, manual and test sends)'),
  succeeded: z.number().int().describe('of which the receiver answered 2xx'),
  failed: z.number().int().describe('of which it did not: any other status, a timeout, no connection, blocked'),
  successRate: z.number().min(0).max(1).nullable().describe('succeeded / attempts; null when there was none'),
};

export const subscriptionStats = z
  .object({
    subscriptionId: uuid,
    from: z.iso.datetime().describe('the start of the first hour'),
    to: z.iso.datetime().describe('the end of the last (current) hour'),
    hours: z.array(z.object({ hour: z.iso.datetime().describe("the hour's start"), ...counts, latencyMs: latency })),
    total: z.object({ ...counts, latencyMs: latency }),
  })
  .meta({ id: 'SubscriptionStats' });

export type SubscriptionStats = z.infer<typeof subscriptionStats>;
