import { createHash } from 'node:crypto';
import { requestSigningInput, verifyRequestSignature } from '../crypto/request-signature.js';
import type { AuthKey, KeyCache } from './key-cache.js';
import type { ReplayCache } from './replay-cache.js';

/** The spec's tolerance between X-Timestamp and server time (§5, §8). */
export const TIMESTAMP_TOLERANCE_SEC = 60;

export interface SignedRequest {
  readonly pubkey: string | undefined;
  readonly timestamp: string | undefined;
  readonly signature: string | undefined;
  readonly method: string;
  /** The request target exactly as received (path and query, not re-encoded). */
  readonly target: string;
  readonly body: Buffer | undefined;
}

/** The replay store shared by every API instance: false when the digest was already recorded (a replay). */
export interface SharedReplayStore {
  firstUse(digest: string, expiresAt: Date): Promise<boolean>;
}

/** Beyond the window, a shared digest is kept this much longer: a margin for clock differences between instances. */
const SHARED_MARGIN_SEC = 5;

/**
 * Methods that change nothing (RFC 9110 §9.2.1): answering one twice is what a retrying or polling client expects, and
 * the ±60 s window of §5 bounds a captured one. Every other method (POST, PUT, PATCH, DELETE, and any unknown one) is
 * refused when repeated exactly.
 */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

export type AuthResult =
  | { readonly ok: true; readonly integratorId: string; readonly keyId: string }
  /**
   * `verified`: the signature was good (a replay, or a request `admit` refused), so the credential is not a guess;
   * `retryAfterSec`: `admit` refused it for that long (the request budget), nothing remembered.
   */
  | { readonly ok: false; readonly cause: string; readonly verified?: true; readonly retryAfterSec?: number };

const PUBKEY = /^0x[0-9a-fA-F]{66}$/;
const TIMESTAMP = /^[0-9]{1,12}$/;
// A DER ECDSA P-256 signature is 8 to 72 bytes.
const SIGNATURE = /^0x(?:[0-9a-fA-F]{2}){8,72}$/;

const fail = (cause: string): AuthResult => ({ ok: false, cause });
const replayed = (cause: string): AuthResult => ({ ok: false, cause, verified: true });

/** Why these headers cannot be a credential (missing or malformed), or undefined when their shapes are right. */
export function credentialShapeProblem(
  pubkey: string | undefined,
  timestamp: string | undefined,
  signature: string | undefined,
): string | undefined {
  if (pubkey === undefined || timestamp === undefined || signature === undefined) return 'missing header';
  if (!PUBKEY.test(pubkey)) return 'X-Pubkey is not 0x + a 33-byte compressed key';
  if (!TIMESTAMP.test(timestamp)) return 'X-Timestamp is not decimal Unix seconds';
  if (!SIGNATURE.test(signature)) return 'X-Signature is not 0x + DER hex';
  return undefined;
}

/** Why a well-formed X-Timestamp is refused at `nowMs` (outside the ±60 s window), or undefined. */
export function timestampProblem(timestamp: string, nowMs: number): string | undefined {
  const skew = Math.abs(nowMs / 1000 - Number(timestamp));
  return skew > TIMESTAMP_TOLERANCE_SEC ? `X-Timestamp is ${Math.round(skew)} s from server time` : undefined;
}

/** The credential headers with their shapes checked, the timestamp in the window and the key found. */
export interface Identified {
  readonly publicKey: string;
  readonly timestamp: string;
  readonly signature: string;
  readonly key: AuthKey;
}

export type Identification =
  { readonly ok: true; readonly found: Identified } | { readonly ok: false; readonly cause: string };

/**
 * Checks the three headers of §5 in order of cost, in two steps. `identify` needs the headers only, so the API runs it
 * before reading the body: shapes, the time window, the key (from memory; an unknown key waits for the key
 * directory's next refresh, shared). `verify` then checks the signature over the body (OpenSSL, on the event loop: a
 * hand-off to libuv's thread pool costs more CPU than the ≈ 60 µs verification itself), and last replay protection, so
 * that only verified messages are remembered: the per-process cache first (a replay to the same instance costs no
 * round trip), then the shared store (a share of one batched insert). Replay protection applies to requests that
 * change state only: a safe method (GET) touches neither cache nor store.
 */
export function createAuthenticator(deps: {
  keys: KeyCache;
  replay: ReplayCache;
  sharedReplay?: SharedReplayStore;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  const skewProblem = (timestamp: string): string | undefined => timestampProblem(timestamp, now());

  /** `wait` false: a key the directory does not hold is refused at once (src/auth/key-cache.ts). */
  async function identify(
    req: Pick<SignedRequest, 'pubkey' | 'timestamp' | 'signature'>,
    { wait = true }: { wait?: boolean } = {},
  ): Promise<Identification> {
    const { pubkey, timestamp, signature } = req;
    const malformed = credentialShapeProblem(pubkey, timestamp, signature);
    if (malformed !== undefined || pubkey === undefined || timestamp === undefined || signature === undefined)
      return { ok: false, cause: malformed ?? 'missing header' };
    const stale = skewProblem(timestamp);
    if (stale !== undefined) return { ok: false, cause: stale };
    const publicKey = pubkey.slice(2).toLowerCase();
    // An off-curve or unregistered key is simply not found (registered keys were validated on the way in).
    const key = await deps.keys.get(publicKey, { wait });
    if (!key) return { ok: false, cause: 'unknown or revoked key' };
    return { ok: true, found: { publicKey, timestamp, signature, key } };
  }

  /**
   * `admit`: asked once the signature verified and before the replay digest is written; seconds the integrator must
   * wait (0: go on). A request it refuses leaves no digest, so the same bytes may be sent again once it may.
   */
  async function verify(
    found: Identified,
    req: Pick<SignedRequest, 'method' | 'target' | 'body'>,
    admit?: (integratorId: string) => number,
  ): Promise<AuthResult> {
    const { publicKey, timestamp, signature, key } = found;
    // Checked again: the body may have taken a while to arrive since `identify`, and the key been revoked meanwhile.
    const stale = skewProblem(timestamp);
    if (stale !== undefined) return fail(stale);
    if (!deps.keys.stillActive(publicKey, key.keyId)) return fail('unknown or revoked key (revoked since)');
    const message = requestSigningInput(timestamp, req.method, req.target, req.body);
    if (!verifyRequestSignature(key.keyObject, message, Buffer.from(signature.slice(2), 'hex')))
      return fail('bad signature');
    const ok: AuthResult = { ok: true, integratorId: key.integratorId, keyId: key.keyId };
    const wait = admit?.(key.integratorId) ?? 0;
    if (wait > 0) return { ok: false, cause: 'over the request budget', verified: true, retryAfterSec: wait };
    if (SAFE_METHODS.has(req.method)) return ok;
    // Keyed on the message, not the signature: ECDSA signatures are malleable ((r, s) and (r, n−s) both verify).
    const digest = createHash('sha256').update(publicKey).update('\0').update(message).digest('base64');
    if (!deps.replay.firstUse(digest)) return replayed('replayed request');
    if (!deps.sharedReplay) return ok;
    // A digest includes its timestamp, which is only accepted within the window: it need not outlive the window.
    const expiresAt = new Date((Number(timestamp) + TIMESTAMP_TOLERANCE_SEC + SHARED_MARGIN_SEC) * 1000);
    let first: boolean;
    try {
      first = await deps.sharedReplay.firstUse(digest, expiresAt);
    } catch (err) {
      // The request fails (5xx) without having been accepted: its retry must not be refused as a replay here.
      deps.replay.forget(digest);
      throw err;
    }
    return first ? ok : replayed('replayed request (seen by another instance)');
  }

  return {
    identify,
    verify,
    /** Both steps at once (in-process callers holding the whole request). */
    async authenticate(req: SignedRequest): Promise<AuthResult> {
      const id = await identify(req);
      return id.ok ? await verify(id.found, req) : fail(id.cause);
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
