import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';

/** A P-256 public key, validated on the curve: its compressed SEC1 hex (lowercase, no prefix) and a node KeyObject. */
export interface P256PublicKey {
  readonly compressedHex: string;
  readonly keyObject: KeyObject;
}

export class InvalidKeyError extends Error {
  override readonly name = 'InvalidKeyError';
}

const HEX = /^[0-9a-fA-F]*$/;

/** The affine point of SEC1 bytes (33 compressed or 65 uncompressed); throws InvalidKeyError off the curve. */
function pointOf(bytes: Uint8Array) {
  if (bytes.length !== 33 && bytes.length !== 65) throw new InvalidKeyError('expected 33 or 65 bytes of SEC1');
  try {
    return p256.Point.fromBytes(bytes);
  } catch {
    throw new InvalidKeyError('not a point on P-256');
  }
}

const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64url');

/** The JWK of an uncompressed point (0x04 || x || y), without the private scalar. */
const jwkOf = (raw: Uint8Array) =>
  ({ kty: 'EC', crv: 'P-256', x: b64(raw.subarray(1, 33)), y: b64(raw.subarray(33, 65)) }) as const;

function keyObjectOf(point: ReturnType<typeof pointOf>): KeyObject {
  return createPublicKey({ key: jwkOf(point.toBytes(false)), format: 'jwk' });
}

/**
 * Parses SEC1 hex (compressed or uncompressed, optional `0x`) when `allowUncompressed`, else compressed only.
 * Validates the point with @noble/curves and builds the KeyObject that node:crypto verifies with.
 */
export function parsePublicKeyHex(input: string, opts: { allowUncompressed?: boolean } = {}): P256PublicKey {
  const hex = input.startsWith('0x') || input.startsWith('0X') ? input.slice(2) : input;
  if (hex.length === 0 || hex.length % 2 !== 0 || !HEX.test(hex)) throw new InvalidKeyError('not hex');
  const bytes = Buffer.from(hex, 'hex');
  if (bytes.length !== 33 && !(opts.allowUncompressed && bytes.length === 65))
    throw new InvalidKeyError(opts.allowUncompressed ? 'expected 33 or 65 bytes' : 'expected a 33-byte compressed key');
  const point = pointOf(bytes);
  return { compressedHex: Buffer.from(point.toBytes(true)).toString('hex'), keyObject: keyObjectOf(point) };
}

/** The compressed SEC1 hex (lowercase, no prefix) of a P-256 public or private KeyObject. */
export function compressedHexOf(key: KeyObject): string {
  const jwk = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'jwk' });
  if (jwk.crv !== 'P-256' || !jwk.x || !jwk.y) throw new InvalidKeyError('not a P-256 key');
  const raw = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x, 'base64url'), Buffer.from(jwk.y, 'base64url')]);
  return Buffer.from(pointOf(raw).toBytes(true)).toString('hex');
}

/**
 * A new P-256 private key: its scalar from @noble/curves' generator (the platform CSPRNG), imported by node:crypto
 * through JWK. Not `generateKeyPairSync`: on Node 20 a key it made shares its mutex with the finished generation job,
 * whose destructor takes that mutex when the garbage collector runs it — and a JWK export of the key (as
 * `compressedHexOf` does) holds the mutex while it allocates, so a collection at that moment hangs the process for
 * good (seen once in CI: `ExportJWKEcKey` → GC → `~KeyGenJob` waiting on the lock its own thread holds).
 */
export function generateP256Key(): KeyObject {
  const secret = p256.utils.randomSecretKey();
  return createPrivateKey({ key: { ...jwkOf(p256.getPublicKey(secret, false)), d: b64(secret) }, format: 'jwk' });
}
