import { adminClient } from '../credentials.js';
import { createPublicKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { compressedHexOf } from '../../crypto/p256.js';
import { defineCommand } from '../program.js';
import { CliError, printJson, readAll, UsageError } from '../support.js';
import type { CliIo } from '../types.js';

/** The `0x…` compressed key of a PEM file (public, or private: its public half), `-` for stdin. */
async function publicKeyFromPem(file: string, io: CliIo): Promise<string> {
  let pem: string;
  try {
    pem = file === '-' ? await readAll(io.stdin) : await readFile(file, 'utf8');
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    return `0x${compressedHexOf(createPublicKey(pem))}`;
  } catch {
    throw new CliError(`${file === '-' ? 'stdin' : file} does not hold a PEM P-256 key`);
  }
}

export const keysAddCommand = defineCommand({
  name: 'keys add',
  summary: 'Register a request-signing public key for an integrator (POST …/{id}/keys)',
  args: ['<integratorId>', '[publicKey]'],
  options: {
    pem: {
      type: 'string',
      value: 'file',
      help: 'a PEM public key, or a private key whose public half is sent (never the private key); - reads stdin',
    },
  },
  notes: 'publicKey: SEC1 hex, compressed (0x02…/0x03…, 33 bytes) or uncompressed (0x04…, 65 bytes); or give --pem',
  async action({ values, positionals }, io) {
    const [integratorId, given] = positionals as [string, string | undefined];
    if ((given === undefined) === (values.pem === undefined))
      throw new UsageError('give the public key or --pem <file>: one of them');
    const publicKey = given ?? (await publicKeyFromPem(values.pem as string, io));
    printJson(io, await adminClient(io.env).addKey(integratorId, publicKey));
    return 0;
  },
});

export const keysRevokeCommand = defineCommand({
  name: 'keys revoke',
  summary: 'Revoke a key; every API instance refuses it within seconds (DELETE …/{id}/keys/{keyId})',
  args: ['<integratorId>', '<keyId>'],
  notes: 'Prints the revoked key as the API now lists it.',
  async action({ positionals }, io) {
    const [integratorId, keyId] = positionals as [string, string];
    const admin = adminClient(io.env);
    await admin.revokeKey(integratorId, keyId);
    const integrator = await admin.getIntegrator(integratorId);
    printJson(io, integrator.keys.find((k) => k.id === keyId) ?? { id: keyId });
    return 0;
  },
});
