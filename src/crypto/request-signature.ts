import { sign, verify, type KeyObject } from 'node:crypto';

// Integrator request signatures (spec §5): ECDSA P-256 over SHA-256 (the spec leaves the hash "not shown"; SHA-256
// is the decision, see docs/auth.md), DER-encoded, over timestamp + METHOD + path_and_query + body.

/**
 * The signed message: the exact bytes of timestamp, METHOD and the request target as sent (node keeps the target's
 * bytes as a latin1 string), followed by the raw body bytes. Nothing is re-encoded or re-ordered.
 */
export function requestSigningInput(
  timestamp: string,
  method: string,
  pathAndQuery: string,
  body?: Uint8Array,
): Buffer {
  const head = Buffer.from(`${timestamp}${method.toUpperCase()}${pathAndQuery}`, 'latin1');
  return body && body.length > 0 ? Buffer.concat([head, body]) : head;
}

/**
 * Verifies a DER signature with OpenSSL; false for any malformed signature (never throws). The KeyObject is passed as
 * is: DER is node's default encoding for EC signatures, and an options object would be read again on every call.
 */
export function verifyRequestSignature(key: KeyObject, message: Buffer, derSignature: Buffer): boolean {
  try {
    return verify('sha256', message, key, derSignature);
  } catch {
    return false;
  }
}

/** Signs a request as an integrator does: DER ECDSA-SHA256, hex with `0x` (the X-Signature value). */
export function signRequest(privateKey: KeyObject, message: Buffer): string {
  return `0x${sign('sha256', message, { key: privateKey, dsaEncoding: 'der' }).toString('hex')}`;
}
