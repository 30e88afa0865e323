import { apiGet } from '../api';
import { useAsync, type Async } from './hooks';
import type { Subscription, SubscriptionPage } from '../types';

/** The integrator's subscriptions for pickers: every page (a few hundred at most in practice). */
export async function allSubscriptions(): Promise<Subscription[]> {
  const out: Subscription[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 20; i++) {
    const page: SubscriptionPage = await apiGet<SubscriptionPage>('/v1/webhooks/subscriptions', { cursor, limit: 250 });
    out.push(...page.subscriptions);
    cursor = page.nextCursor;
    if (cursor === null) break;
  }
  return out;
}

export const useSubscriptions = (): Async<Subscription[]> => useAsync(allSubscriptions, []);
