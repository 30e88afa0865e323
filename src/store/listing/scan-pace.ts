/**
 * Rows a second one integrator's listing pages may examine in this process (HERALD_LISTING_SCAN_RATE), shared by all
 * its pages at once: a rare filter over a long history, followed by several clients without pause, would otherwise
 * keep both the API's event loop and the database busy and every other integrator's reads waiting for CPU. Reading
 * is never refused: a page whose integrator is ahead of its pace waits between two reads (at most until its time
 * limit, HERALD_LISTING_TIME_MS) and answers what it found with a cursor, so the integrator's scan goes on at the
 * pace and nobody else's reads pay for it. A second's worth of rows is read at once.
 */
export interface ScanPace {
  /** Records rows an integrator's page examined (its pace may go ahead: the page's first read is never held). */
  spend(integratorId: string, rows: number): void;
  /** Milliseconds until the integrator is back within its pace; 0 when it is. */
  waitMs(integratorId: string): number;
}

export function createScanPace(rowsPerSec: number, now: () => number = Date.now, maxKeys = 10_000): ScanPace {
  // Rows read beyond the pace, per integrator, paid off at `rowsPerSec` since `at`; insertion order is use order.
  const ahead = new Map<string, { rows: number; at: number }>();
  const current = (integratorId: string) => {
    const entry = ahead.get(integratorId);
    if (!entry) return undefined;
    const t = now();
    entry.rows = Math.max(0, entry.rows - ((t - entry.at) / 1000) * rowsPerSec);
    entry.at = t;
    return entry;
  };
  return {
    spend(integratorId, rows) {
      const entry = current(integratorId) ?? { rows: 0, at: now() };
      entry.rows += rows;
      ahead.delete(integratorId);
      // An entry dropped here had been idle longest: it comes back with nothing ahead (a second's grace at most).
      if (ahead.size >= maxKeys) ahead.delete(ahead.keys().next().value as string);
      ahead.set(integratorId, entry);
    },
    waitMs(integratorId) {
      const over = (current(integratorId)?.rows ?? 0) - rowsPerSec;
      return over > 0 ? (over / rowsPerSec) * 1000 : 0;
    },
  };
}
