// Ids derived from what they identify, so that a repeated hand-off, a retried activity or a re-submitted event
// addresses the same document by `_id` instead of searching for it. Still uuids (v5, RFC 9562), as the API says.
import { createHash } from 'node:crypto';

/** Herald's own uuid namespace (a random v4, fixed forever: changing it would change every derived id). */
const NAMESPACE = Buffer.from('3b8f4c1e9d2a4f6b8e0c5a7d1f2b9e64', 'hex');

export function uuidV5(name: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The one delivery of an event to a subscription. */
export const deliveryIdOf = (eventId: string, subscriptionId: string): string =>
  uuidV5(`delivery:${eventId}:${subscriptionId}`);

/** Attempt `attemptNumber` of a delivery. */
export const attemptIdOf = (deliveryId: string, attemptNumber: number): string =>
  uuidV5(`attempt:${deliveryId}:${attemptNumber}`);
