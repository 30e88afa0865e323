import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../store/index.js';
import type { Walk } from '../store/listing/index.js';
import { posOf, type Pos, type RowBase } from '../store/pages/index.js';
import { purgeDeliveries, purgeEvents, type ItemCounts, type PurgeRule } from './purge-items.js';

/** How one pass over an integrator paces itself. */
export interface Pace {
  /** Rows one batch examines. */
  batch: number;
  /** The least pause after each batch (ms). */
  pauseMs: number;
  /** The share of time the pass works (0–1]: after a batch that took t, it pauses at least t × (1 / duty − 1). */
  duty: number;
  /** When the pass stops, done or not (a Date.now() value). */
  deadline: number;
}

/** The pause after a batch that started at `startedAt` (a performance.now() value). */
export function restAfter(pace: Pick<Pace, 'pauseMs' | 'duty'>, startedAt: number): Promise<void> {
  const worked = performance.now() - startedAt;
  return sleep(Math.max(pace.pauseMs, (worked * (1 - pace.duty)) / pace.duty));
}

/** A cutoff no walk reaches: an erasure walks everything. */
const END_OF_TIME = new Date(8.64e15);

/** Walks `walk` from its oldest row, a batch at a time; false when the deadline came first. */
async function walkAll<R extends RowBase>(
  walk: Walk<R>,
  before: Date,
  pace: Pace,
  purge: (rows: R[]) => Promise<void>,
) {
  let after: Pos | undefined;
  for (;;) {
    if (Date.now() >= pace.deadline) return false;
    const startedAt = performance.now();
    const rows = await walk.next(before, pace.batch, after);
    if (rows.length === 0) return true;
    await purge(rows);
    after = posOf(rows.at(-1)!);
    await restAfter(pace, startedAt);
  }
}

/**
 * One pass over an integrator's history by `rule`: its deliveries oldest first (with the events each deleted delivery
 * leaves without one), then its events oldest first. Answers false when the deadline came before the end.
 */
export async function purgeIntegrator(
  store: Store,
  integratorId: string,
  rule: PurgeRule,
  pace: Pace,
  add: (counts: ItemCounts) => void,
): Promise<boolean> {
  const before = rule.erase ? END_OF_TIME : rule.cutoff;
  const walks = await store.retention.walks(integratorId);
  const deliveriesDone = await walkAll(walks.deliveries, before, pace, async (rows) => {
    const { eventIds, ...counts } = await purgeDeliveries(store.db, store.retention, integratorId, rows, rule);
    add(counts);
    if (eventIds.length > 0) add(await purgeEvents(store.db, store.retention, integratorId, [], eventIds, rule));
  });
  if (!deliveriesDone) return false;
  for (const walk of walks.events) {
    const done = await walkAll(walk, before, pace, async (rows) =>
      add(await purgeEvents(store.db, store.retention, integratorId, rows, [], rule)),
    );
    if (!done) return false;
  }
  return true;
}
