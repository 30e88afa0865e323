import { randomUUID } from 'node:crypto';
import { generateSigningKey, type KeyVault } from '../crypto/key-encryption.js';
import type { SubscribableEventType } from '../domain/event-types.js';
import type { CallbackUrlPolicy } from '../net/callback-url.js';
import type { SubscriptionDoc } from '../store/documents.js';
import type { NewSigningKey } from '../store/subscriptions-repo.js';
import { HttpError } from './errors.js';

/**
 * The callback URL as it will be stored and called (WHATWG-normalised `href`), or a 400 `invalid_callback_url`
 * whose message starts with the rule's stable name. Runs before anything is written.
 */
export async function acceptedCallbackUrl(policy: CallbackUrlPolicy, raw: string): Promise<string> {
  const verdict = await policy.check(raw);
  if (!verdict.ok) throw new HttpError(400, 'invalid_callback_url', `${verdict.rule}: ${verdict.message}`);
  return verdict.url.href;
}

/**
 * Omitted or empty means every subscribable type (§6.2), stored as 'all' so that the meaning is explicit. Duplicates
 * are dropped, the first occurrence keeping its place.
 */
export const storedEventTypes = (types: readonly SubscribableEventType[] | undefined): SubscriptionDoc['eventTypes'] =>
  types === undefined || types.length === 0 ? 'all' : [...new Set(types)];

/** A new P-256 key pair for a subscription; the private key leaves this function only sealed (AAD = its id). */
export function newSigningKey(vault: KeyVault, subscriptionId: string): NewSigningKey {
  const { privateKey, publicKeyHex } = generateSigningKey();
  return { id: randomUUID(), publicKey: publicKeyHex, sealed: vault.seal(privateKey, subscriptionId) };
}
