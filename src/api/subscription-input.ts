import { randomUUID } from 'node:crypto';
import { generateSigningKey, type KeyVault } from '../crypto/key-encryption.js';
import type { NameableEventType } from '../domain/event-types.js';
import type { CallbackUrlPolicy } from '../net/callback-url.js';
import type { SubscriptionDoc } from '../store/documents.js';
import type { NewSigningKey } from '../store/subscriptions-repo.js';
import { HttpError } from './errors.js';

const invalid = (rule: string, message: string) => new HttpError(400, 'invalid_callback_url', `${rule}: ${message}`);

/**
 * The callback URL as it will be stored and called (its canonical WHATWG `href`), or a 400 `invalid_callback_url`
 * whose message starts with the rule's stable name. Runs before anything is written. A host that does not resolve
 * and one that resolves to a non-public address answer alike, naming no address, so that the API cannot be used to
 * learn which internal names exist nor where they point (docs/security.md).
 */
export async function acceptedCallbackUrl(
  policy: CallbackUrlPolicy,
  raw: string,
  integratorId: string,
): Promise<string> {
  const syntax = policy.checkSyntax(raw);
  if (!syntax.ok) throw invalid(syntax.rule, syntax.message);
  // Per integrator: one whose DNS stalls waits behind its own lookups, not in front of everybody's.
  const host = await policy.checkHost(syntax.hostname, integratorId);
  if (!host.ok)
    throw invalid('non_public_address', `the callback host ${syntax.hostname} does not resolve to a public address`);
  return syntax.url.href;
}

/**
 * Omitted or empty means every type of the spec's subscribable enum (§6.2), stored as 'all' so that the meaning is
 * explicit (Herald's own types are never part of 'all'). The API's schema refuses a type given twice (400
 * invalid_request, `uniqueItems`); callers that skip it (seeding in tests and benches) get each type once, in order.
 */
export const storedEventTypes = (types: readonly NameableEventType[] | undefined): SubscriptionDoc['eventTypes'] =>
  types === undefined || types.length === 0 ? 'all' : [...new Set(types)];

/** A new P-256 key pair for a subscription; the private key leaves this function only sealed (AAD = its id). */
export function newSigningKey(vault: KeyVault, subscriptionId: string, id: string = randomUUID()): NewSigningKey {
  const { privateKey, publicKeyHex } = generateSigningKey();
  return { id, publicKey: publicKeyHex, sealed: vault.seal(privateKey, subscriptionId) };
}
