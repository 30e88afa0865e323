// Verifies Herald's signed deliveries (spec §6.4, §6.5). Self-contained on purpose: it imports only node:crypto and
// the P-256 key codec, so an integrator can copy it. The wire constants and the signed input are defined here and
// the signer (src/crypto/webhook-signature.ts) imports them, so the two sides cannot drift apart.
import { verify as verifySignature, type KeyObject } from 'node:crypto';
import { InvalidKeyError, parsePublicKeyHex } from '../crypto/p256.js';

export const WEBHOOK_ALGORITHM = 'ECDSA_P256_SHA256';

export const WEBHOOK_HEADERS = {
  deliveryId: 'X-Service-Webhook-Delivery-Id',
  eventId: 'X-Service-Webhook-Event-Id',
  timestamp: 'X-Service-Webhook-Timestamp',
  keyId: 'X-Service-Webhook-Key-Id',
  algorithm: 'X-Service-Webhook-Algorithm',
  signature: 'X-Service-Webhook-Signature',
} as const;

export const DEFAULT_TOLERANCE_SEC = 300;

/**
 * The bytes a delivery signature covers: UTF-8 of `${deliveryId}.${timestamp}.` followed by the exact raw body.
 * Binding the delivery id and the timestamp stops a captured body from being replayed under another delivery id or,
 * outside the tolerance window, at another time. The body is appended as bytes, never re-encoded.
 */
export function signedInput(deliveryId: string, timestamp: number | string, body: string | Uint8Array): Buffer {
  const raw = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return Buffer.concat([Buffer.from(`${deliveryId}.${timestamp}.`, 'utf8'), raw]);
}

/** The delivery body: the §2.1 event fields without `createdAt`. */
export interface WebhookEvent {
  readonly id: string;
  /** A string rather than a closed union: a receiver should not reject event types added after it was written. */
  readonly eventType: string;
  readonly occurredAt: string;
  readonly livemode: boolean;
  readonly payloadVersion: number;
  readonly integratorId: string;
  readonly accountId?: string | null;
  readonly userId?: string | null;
  readonly entityId?: string | null;
  readonly beneficiaryId?: string | null;
  readonly transactionId?: string | null;
  readonly provider?: 'service' | 'kyc_provider' | 'transfer_provider' | 'onchain' | null;
  readonly providerEventId?: string | null;
  readonly data?: unknown;
}

export type WebhookVerificationErrorCode =
  | 'missing_header'
  | 'unsupported_algorithm'
  | 'invalid_timestamp'
  | 'timestamp_out_of_tolerance'
  | 'invalid_signature_format'
  | 'unknown_key'
  | 'invalid_signature'
  | 'invalid_payload';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly code: WebhookVerificationErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export type WebhookHeaders = Record<string, string | string[] | undefined> | Headers;

export interface VerifyOptions {
  /** Replay window in seconds, both directions; default the verifier's (300). */
  readonly toleranceSec?: number;
  /** The receiver's clock, for tests. */
  readonly now?: Date;
}

/** Case-insensitive lookup; repeated values are joined with ", " as fetch's Headers does, so they fail the checks. */
function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const wanted = name.toLowerCase();
  const values = Object.entries(headers as Record<string, string | string[] | undefined>)
    .filter(([key, value]) => key.toLowerCase() === wanted && value !== undefined)
    .flatMap(([, value]) => value as string | string[]);
  return values.length === 0 ? undefined : values.join(', ');
}

function requireHeader(headers: WebhookHeaders, name: string): string {
  const value = headerOf(headers, name)?.trim();
  if (!value) throw new WebhookVerificationError('missing_header', `missing header ${name}`);
  return value;
}

function keyObjectOf(publicKeyHex: string, label: string): KeyObject {
  try {
    return parsePublicKeyHex(publicKeyHex.trim()).keyObject;
  } catch (err) {
    throw new InvalidKeyError(`${label}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Parses, decodes and validates the body only after the signature over its raw bytes has been checked. */
function parsePayload(raw: Uint8Array): WebhookEvent {
  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'the body is not UTF-8 JSON');
  }
  const e = event as Partial<Record<keyof WebhookEvent, unknown>> | null;
  const isEvent = typeof e === 'object' && e !== null && !Array.isArray(e);
  if (!isEvent || typeof e.id !== 'string' || typeof e.eventType !== 'string')
    throw new WebhookVerificationError('invalid_payload', 'the body is not an event object');
  return e as WebhookEvent;
}

/**
 * Verifies deliveries signed with a subscription's key (`new WebhookVerifier(subscription.publicKey)`), or with one
 * of several keys chosen by the Key-Id header (`WebhookVerifier.fromKeys(…)`) while a key rotation is under way.
 */
export class WebhookVerifier {
  readonly #toleranceSec: number;
  /** The key for a Key-Id header: the one key whatever the id, or a lookup in the rotation set. */
  #keyFor: (keyId: string) => KeyObject | undefined;

  constructor(publicKeyHex: string, { toleranceSec = DEFAULT_TOLERANCE_SEC }: { toleranceSec?: number } = {}) {
    if (!Number.isFinite(toleranceSec) || toleranceSec < 0) throw new RangeError('toleranceSec must be ≥ 0');
    this.#toleranceSec = toleranceSec;
    const key = keyObjectOf(publicKeyHex, 'publicKey');
    this.#keyFor = () => key;
  }

  /** `{ [keyId]: publicKeyHex }`: the Key-Id header picks the key; an unknown one fails with `unknown_key`. */
  static fromKeys(keys: Readonly<Record<string, string>>, options: { toleranceSec?: number } = {}): WebhookVerifier {
    const entries = Object.entries(keys);
    const first = entries[0];
    if (first === undefined) throw new RangeError('fromKeys needs at least one key');
    const verifier = new WebhookVerifier(first[1], options);
    const byId = new Map(entries.map(([keyId, hex]) => [keyId, keyObjectOf(hex, `key ${keyId}`)]));
    verifier.#keyFor = (keyId) => byId.get(keyId);
    return verifier;
  }

  /** Pass the exact raw body: a string only if it is the body exactly as received. */
  verify(rawBody: Buffer | Uint8Array | string, headers: WebhookHeaders, opts: VerifyOptions = {}): WebhookEvent {
    const h = WEBHOOK_HEADERS;
    const deliveryId = requireHeader(headers, h.deliveryId);
    requireHeader(headers, h.eventId);
    const timestamp = requireHeader(headers, h.timestamp);
    const keyId = requireHeader(headers, h.keyId);
    const algorithm = requireHeader(headers, h.algorithm);
    const signature = requireHeader(headers, h.signature);

    if (algorithm !== WEBHOOK_ALGORITHM)
      throw new WebhookVerificationError('unsupported_algorithm', `unsupported algorithm ${algorithm}`);

    // At most 12 digits keeps Number() exact; Unix seconds need 10 until the year 2286.
    if (!/^\d{1,12}$/.test(timestamp))
      throw new WebhookVerificationError('invalid_timestamp', `${h.timestamp} is not decimal Unix seconds`);
    const tolerance = opts.toleranceSec ?? this.#toleranceSec;
    const nowSec = Math.floor((opts.now ?? new Date()).getTime() / 1000);
    if (Math.abs(nowSec - Number(timestamp)) > tolerance)
      throw new WebhookVerificationError('timestamp_out_of_tolerance', `timestamp is more than ${tolerance} s off`);

    if (!/^[0-9a-fA-F]{128}$/.test(signature))
      throw new WebhookVerificationError('invalid_signature_format', 'the signature is not 64 bytes of hex (r‖s)');

    const key = this.#keyFor(keyId);
    if (key === undefined) throw new WebhookVerificationError('unknown_key', `unknown key id ${keyId}`);

    const raw = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
    const valid = verifySignature(
      'sha256',
      signedInput(deliveryId, timestamp, raw),
      { key, dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature, 'hex'),
    );
    if (!valid) throw new WebhookVerificationError('invalid_signature', 'the signature does not match');
    return parsePayload(raw);
  }
}
