import type { KeyObject } from 'node:crypto';
import { requestSigningInput, signRequest } from '../../src/crypto/request-signature.js';

/** The three §5 headers (and the content type of a body) for one request, signed now by `key`. */
export function signedHeaders(
  key: { privateKey: KeyObject; pubkey: string },
  method: string,
  target: string,
  body = '',
  timestamp = String(Math.floor(Date.now() / 1000)),
): Record<string, string> {
  const signature = signRequest(key.privateKey, requestSigningInput(timestamp, method, target, Buffer.from(body)));
  return {
    'x-pubkey': key.pubkey,
    'x-timestamp': timestamp,
    'x-signature': signature,
    ...(body ? { 'content-type': 'application/json' } : {}),
  };
}
