import { compressedHexOf, generateP256Key } from '../../crypto/p256.js';
import { defineCommand } from '../program.js';
import { printJson } from '../support.js';

/**
 * A fresh P-256 pair for an integrator. The private key goes to stdout once and nowhere else: nothing is written to
 * disk and nothing is sent to the server, so only the public key ever needs registering.
 */
export const keygenCommand = defineCommand({
  name: 'keygen',
  summary: 'Generate a P-256 key pair (private key PEM to stdout only, X-Pubkey value beside it)',
  options: {
    pem: { type: 'boolean', help: 'print a PEM file instead: a "X-Pubkey: 0x…" line, then the PKCS#8 private key' },
  },
  notes: [
    'Prints { "publicKey": "0x…", "privateKey": "-----BEGIN PRIVATE KEY-----…" } (PKCS#8 PEM). node:crypto and',
    'openssl read the --pem output as is: `(umask 077; herald keygen --pem > key.pem)`',
  ].join('\n'),
  async action({ values }, io) {
    const privateKey = generateP256Key();
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const publicKey = `0x${compressedHexOf(privateKey)}`;
    // PEM readers skip text before the BEGIN line (RFC 7468 §2), so the public key can travel in the same file.
    if (values.pem) io.stdout.write(`X-Pubkey: ${publicKey}\n${pem}`);
    else printJson(io, { publicKey, privateKey: pem });
    return 0;
  },
});
