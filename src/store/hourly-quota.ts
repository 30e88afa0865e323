import type { Store } from './index.js';

const HOUR_MS = 3_600_000;

/**
 * Counts one use of an integrator's hourly quota `kind` in the shared store (one `_id` upsert, so every instance and
 * the worker count together); answers null within `max`, else the seconds until the next hour. A refused use still
 * counts. The API's quotas (src/api/quotas.ts) and the worker's campaign re-deliveries share it.
 */
export async function useHourlyQuota(
  store: Pick<Store, 'expiring'>,
  integratorId: string,
  kind: string,
  max: number,
  now = Date.now(),
): Promise<number | null> {
  const start = Math.floor(now / HOUR_MS) * HOUR_MS;
  const used = await store.expiring.take(`${integratorId}:${kind}:${start}`, new Date(start + HOUR_MS));
  return used > max ? (start + HOUR_MS - now) / 1000 : null;
}
