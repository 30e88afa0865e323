import { adminClient } from '../credentials.js';
import { createPublicKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { compressedHexOf } from '../../crypto/p256.js';
import { CliError, parseCommandArgs, printJson, readAll, UsageError } from '../support.js';
import type { CliCommand, CliIo } from '../types.js';

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

export const keysAddCommand: CliCommand = {
  name: 'keys add',
  summary: 'Register a request-signing public key for an integrator (POST …/{id}/keys)',
  usage: [
    'herald keys add <integratorId> <publicKey>',
    '       herald keys add <integratorId> --pem <file|->',
    '',
    '  <publicKey>   SEC1 hex, compressed (0x02…/0x03…, 33 bytes) or uncompressed (0x04…, 65 bytes)',
    '  --pem FILE    a PEM public key, or a private key whose public half is sent (the private key never is);',
    '                `-` reads stdin',
  ].join('\n'),
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { pem: { type: 'string' } }, [1, 2]);
    const [integratorId, given] = positionals as [string, string | undefined];
    if ((given === undefined) === (values.pem === undefined))
      throw new UsageError('give the public key or --pem <file>: one of them');
    const publicKey = given ?? (await publicKeyFromPem(values.pem as string, io));
    printJson(io, await adminClient(io.env).addKey(integratorId, publicKey));
    return 0;
  },
};

export const keysRevokeCommand: CliCommand = {
  name: 'keys revoke',
  summary: 'Revoke a key; every API instance refuses it within seconds (DELETE …/{id}/keys/{keyId})',
  usage: 'herald keys revoke <integratorId> <keyId>\n\n  prints the revoked key as the API now lists it',
  async run(args, io) {
    const { positionals } = parseCommandArgs(args, {}, 2);
    const [integratorId, keyId] = positionals as [string, string];
    const admin = adminClient(io.env);
    await admin.revokeKey(integratorId, keyId);
    const integrator = await admin.getIntegrator(integratorId);
    printJson(io, integrator.keys.find((k) => k.id === keyId) ?? { id: keyId });
    return 0;
  },
};
