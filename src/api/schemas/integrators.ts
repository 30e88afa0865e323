import { z } from 'zod';
import { uuid } from './common.js';

const publicKeyOut = z
  .string()
  .describe('compressed SEC1 P-256 public key, `0x` + 66 lowercase hex digits (the X-Pubkey value)');

export const integratorKey = z
  .object({
    id: uuid,
    publicKey: publicKeyOut,
    createdAt: z.string().describe('ISO-8601 UTC'),
    revokedAt: z.string().nullable(),
  })
  .meta({ id: 'IntegratorKey' });

export const integrator = z.object({ id: uuid, name: z.string(), createdAt: z.string() }).meta({ id: 'Integrator' });

export const integratorWithKeys = integrator
  .extend({ keys: z.array(integratorKey) })
  .meta({ id: 'IntegratorWithKeys' });

export const createIntegratorBody = z.strictObject({ name: z.string().trim().min(1).max(200) });

export const addKeyBody = z.strictObject({
  publicKey: z
    .string()
    .max(200)
    .describe('SEC1 P-256 public key in hex, compressed (33 bytes) or uncompressed (65 bytes), `0x` optional'),
});

export const integratorParams = z.strictObject({ integratorId: uuid });
export const keyParams = z.strictObject({ integratorId: uuid, keyId: uuid });

export const credential = z
  .object({ integratorId: uuid, keyId: uuid, publicKey: publicKeyOut })
  .meta({ id: 'Credential' });
