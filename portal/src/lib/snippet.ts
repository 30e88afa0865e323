// The Node verification snippet shown with each subscription's public key (docs/verify-with-openssl.md).

export function verificationSnippet(publicKeyHex: string, keyId: string): string {
  return `import { createPublicKey, verify } from 'node:crypto';

// The subscription's public key (key id ${keyId}): compressed SEC1 P-256, hex.
const PUBLIC_KEY_HEX = '${publicKeyHex.replace(/^0x/, '')}';
// The fixed DER header of a compressed P-256 SubjectPublicKeyInfo, then the 33 key bytes.
const publicKey = createPublicKey({
  key: Buffer.from('3039301306072a8648ce3d020106082a8648ce3d030107032200' + PUBLIC_KEY_HEX, 'hex'),
  format: 'der',
  type: 'spki',
});

// rawBody: the request body exactly as received (a Buffer, before any JSON parsing).
// headers: the request headers with lower-case names (as Node gives them).
export function verifyDelivery(rawBody, headers) {
  if (headers['x-service-webhook-algorithm'] !== 'ECDSA_P256_SHA256') return false;
  const deliveryId = headers['x-service-webhook-delivery-id'];
  const timestamp = headers['x-service-webhook-timestamp'];
  if (!(Math.abs(Date.now() / 1000 - Number(timestamp)) <= 300)) return false; // replay window
  // After a key rotation, pick the key named by headers['x-service-webhook-key-id'].
  const signed = Buffer.concat([Buffer.from(\`\${deliveryId}.\${timestamp}.\`), rawBody]);
  const signature = Buffer.from(headers['x-service-webhook-signature'] ?? '', 'hex'); // r‖s, 64 bytes
  return signature.length === 64 &&
    verify('sha256', signed, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature);
}
`;
}
