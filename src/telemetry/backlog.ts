// Gauges computed when scraped: how many deliveries wait for a retry, and how many are overdue (pending past their
// scheduled time by more than a grace period: a worker that stopped, a timer that never fired).
import { Gauge, type Registry } from 'prom-client';
import type { Db } from 'mongodb';
import type { DeliveryDoc } from '../store/documents.js';

export interface BacklogOptions {
  /** A delivery this much past its due time counts as overdue (default 60 s: one POST is bounded at ~15 s). */
  readonly overdueAfterMs?: number;
  /** Counts are cached this long, so frequent scrapes do not scan the collection each time (default 15 s). */
  readonly cacheMs?: number;
  readonly now?: () => number;
}

export function registerBacklogGauges(registry: Registry, db: Db, options: BacklogOptions = {}): void {
  const { overdueAfterMs = 60_000, cacheMs = 15_000, now = Date.now } = options;
  const deliveries = db.collection<DeliveryDoc>('deliveries');
  let cached: { at: number; counts: Promise<{ waiting: number; overdue: number }> } | undefined;

  const counts = (): Promise<{ waiting: number; overdue: number }> => {
    const at = now();
    if (!cached || at - cached.at >= cacheMs) {
      const query = Promise.all([
        // Both filters lead with `status` (index `status_nextAttemptAt`).
        deliveries.countDocuments({ status: 'pending', attemptCount: { $gt: 0 } }),
        deliveries.countDocuments({ status: 'pending', nextAttemptAt: { $lt: new Date(at - overdueAfterMs) } }),
      ]).then(([waiting, overdue]) => ({ waiting, overdue }));
      cached = { at, counts: query };
      query.catch(() => (cached = undefined)); // a failed count is retried at the next scrape
    }
    return cached.counts;
  };

  new Gauge({
    name: 'herald_deliveries_waiting_retry',
    help: 'Pending deliveries with at least one attempt made: waiting for their next retry',
    registers: [registry],
    async collect() {
      const c = await counts().catch(() => undefined); // the database is down: keep the last value
      if (c) this.set(c.waiting);
    },
  });
  new Gauge({
    name: 'herald_deliveries_overdue',
    help: 'Pending deliveries whose scheduled attempt is more than the grace period late',
    registers: [registry],
    async collect() {
      const c = await counts().catch(() => undefined);
      if (c) this.set(c.overdue);
    },
  });
}
