// Signing of outbound deliveries (spec §6.4, §6.5).
//
// Decision (the spec leaves the signed input "not shown"): the signature covers the UTF-8 bytes of
//   `${deliveryId}.${timestamp}.${body}`
// where timestamp is the decimal Unix seconds sent in X-Service-Webhook-Timestamp and body the exact raw request
// body. Binding the delivery id and the timestamp means a captured request cannot be replayed under another
// delivery id, nor after the receiver's tolerance window. Delivery ids contain no '.' and timestamps are digits
// only, so the three parts split unambiguously. Signature: ECDSA P-256 over SHA-256, 64 bytes r‖s
// (IEEE P1363, not DER), lowercase hex without prefix, in X-Service-Webhook-Signature.
//
// The wire constants and signedInput live in the receiver helper, which must stay self-contained; they are
// re-exported here so server code imports them from crypto/.
import { sign, type KeyObject } from 'node:crypto';
import { WEBHOOK_ALGORITHM, WEBHOOK_HEADERS, signedInput } from '../receiver/webhook-verifier.js';

export { WEBHOOK_ALGORITHM, WEBHOOK_HEADERS, signedInput };

/** Herald's version in the User-Agent; a unit test keeps it equal to package.json's (dist/ has no package.json). */
export const HERALD_VERSION = '0.1.0';
export const WEBHOOK_USER_AGENT = `Herald-Webhooks/${HERALD_VERSION}`;

export class WebhookSigningError extends Error {
  override readonly name = 'WebhookSigningError';
}

/** The hex r‖s signature of one delivery. `privateKey` is a cached KeyObject: signing is then a single OpenSSL call. */
export function signWebhook(
  privateKey: KeyObject,
  deliveryId: string,
  timestamp: number,
  body: string | Uint8Array,
): string {
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
    throw new WebhookSigningError('the signing key must be a P-256 private key');
  // These keep the signed input unambiguous (see above); a violation is a bug in the caller, not a receiver fault.
  if (deliveryId === '' || deliveryId.includes('.'))
    throw new WebhookSigningError('deliveryId must be non-empty and without "."');
  if (!Number.isSafeInteger(timestamp) || timestamp < 0)
    throw new WebhookSigningError('timestamp must be whole Unix seconds');
  return sign('sha256', signedInput(deliveryId, timestamp, body), {
    key: privateKey,
    dsaEncoding: 'ieee-p1363',
  }).toString('hex');
}

export interface WebhookHeaderInput {
  readonly deliveryId: string;
  readonly eventId: string;
  readonly keyId: string;
  /** The same Unix seconds that were signed. */
  readonly timestamp: number;
  readonly signature: string;
}

/** Every header of a delivery request (§6.4), plus the content type and user agent. */
export function buildWebhookHeaders(input: WebhookHeaderInput): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    [WEBHOOK_HEADERS.deliveryId]: input.deliveryId,
    [WEBHOOK_HEADERS.eventId]: input.eventId,
    [WEBHOOK_HEADERS.timestamp]: String(input.timestamp),
    [WEBHOOK_HEADERS.keyId]: input.keyId,
    [WEBHOOK_HEADERS.algorithm]: WEBHOOK_ALGORITHM,
    [WEBHOOK_HEADERS.signature]: input.signature,
  };
}
