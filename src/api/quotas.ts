import type { Config } from '../config.js';
import { useHourlyQuota } from '../store/hourly-quota.js';
import type { Store } from '../store/index.js';
import { HttpError, tooMany } from './errors.js';

/** Actions limited per integrator and clock hour, with the config variable that sets each limit. */
const hourly = {
  key_rotations: { limit: 'HERALD_KEY_ROTATIONS_PER_HOUR', what: 'signing-key rotations' },
  test_sends: { limit: 'HERALD_TEST_SENDS_PER_HOUR', what: 'test sends' },
  // Each create mints a signing key, kept after the subscription is deleted: creates and deletes in a loop are bounded.
  subscription_creates: { limit: 'HERALD_SUBSCRIPTION_CREATES_PER_HOUR', what: 'subscription creates' },
  // One budget for both ways an integrator makes Herald send a delivery again (the worker's campaigns count here too).
  resends: { limit: 'HERALD_RESEND_BUDGET_PER_HOUR', what: 'manual retries and campaign re-deliveries' },
} as const;
type HourlyKind = keyof typeof hourly;

/** `useHourlyQuota`, past the limit 429 `quota_exceeded` with Retry-After up to the next hour. */
export async function takeHourlyQuota(
  deps: { store: Store; config: Config },
  integratorId: string,
  kind: HourlyKind,
  now = Date.now(),
): Promise<void> {
  const { limit, what } = hourly[kind];
  const max = deps.config[limit];
  const wait = await useHourlyQuota(deps.store, integratorId, kind, max, now);
  if (wait !== null) throw tooMany('quota_exceeded', `at most ${max} ${what} per integrator per hour`, wait);
}

/** 409 `quota_exceeded` when the integrator already has HERALD_MAX_SUBSCRIPTIONS live subscriptions. */
export async function checkSubscriptionQuota(deps: { store: Store; config: Config }, integratorId: string) {
  const max = deps.config.HERALD_MAX_SUBSCRIPTIONS;
  if ((await deps.store.subscriptions.countLive(integratorId)) >= max)
    throw new HttpError(409, 'quota_exceeded', `at most ${max} live subscriptions per integrator; delete one first`);
}
