import type { Collection } from 'mongodb';
import type { DeliveryDoc } from './documents.js';
import type { RowBase } from './event-pages/rows.js';

/**
 * What a deliveries listing shows of a delivery, kept in a sealed page's row (docs/deliveries.md, "The deliveries
 * listing"): only for `succeeded` and `failed`, which no write changes except a manual retry's reopening (which files
 * the delivery as pending, so the reader reads it by `_id` again); and only when small, so pages stay small.
 */
export type DeliverySnapshot = Omit<DeliveryDoc, 'attempts'>;

const FINAL: ReadonlySet<string> = new Set(['succeeded', 'failed']);
/** Bytes of JSON: a response summary may hold 4 KiB of body; such a delivery is read by `_id` instead. */
const MAX_SNAPSHOT = 1024;

export function snapshotOf(d: DeliveryDoc): DeliverySnapshot | undefined {
  if (!FINAL.has(d.status)) return undefined;
  const { attempts: _attempts, ...shown } = d;
  return JSON.stringify(shown).length <= MAX_SNAPSHOT ? shown : undefined;
}

/** A delivery listing key's dimension starts with `d-` (src/store/delivery-pages.ts). */
const isDeliveryKey = (key: string): boolean => key.split('|')[1]?.startsWith('d-') === true;

/**
 * The rows a seal files into a delivery key's pages, each with its delivery's snapshot when it has one (one read by
 * `_id` per row that lacks it); rows of other keys unchanged.
 */
export async function withSnapshots(
  deliveries: Collection<DeliveryDoc>,
  key: string,
  rows: readonly RowBase[],
): Promise<RowBase[]> {
  if (!isDeliveryKey(key)) return [...rows];
  return await Promise.all(
    rows.map(async (row) => {
      if ('d' in row) return row;
      const doc = await deliveries.findOne({ _id: row.i }, { projection: { attempts: 0 } });
      const d = doc && snapshotOf(doc);
      return d ? { ...row, d } : row;
    }),
  );
}
