import { z } from 'zod';
import { erasureSteps, subjectErasureSteps } from '../../../workflows/erasure-messages.js';
import { dateTime, uuid } from './common.js';

const publicKeyOut = z
  .string()
  .describe('compressed SEC1 P-256 public key, `0x` + 66 lowercase hex digits (the X-Pubkey value)');

export const integratorKey = z
  .object({
    id: uuid,
    publicKey: publicKeyOut,
    createdAt: dateTime.describe('ISO-8601 UTC'),
    revokedAt: dateTime.nullable(),
  })
  .meta({ id: 'IntegratorKey' });

export const integrator = z.object({ id: uuid, name: z.string(), createdAt: dateTime }).meta({ id: 'Integrator' });

export const integratorWithKeys = integrator
  .extend({ keys: z.array(integratorKey) })
  .meta({ id: 'IntegratorWithKeys' });

/** 1–200 characters with at least one that is not white space; stored trimmed. */
export const createIntegratorBody = z.strictObject({
  name: z
    .string()
    .max(200)
    .regex(/\S/, 'must not be blank')
    .transform((s) => s.trim()),
});

export const addKeyBody = z.strictObject({
  publicKey: z
    .string()
    .max(200)
    .meta({
      pattern: '^(0[xX])?(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$',
      examples: ['0x026a841b442cf3d1768b1203c23a72f5a35ea107d11da305ac8750cf22c8845974'],
    })
    .describe(
      'a point on P-256 (else 400 invalid_public_key): SEC1 public key in hex, compressed (33 bytes) or uncompressed (65 bytes), `0x` optional',
    ),
});

export const integratorParams = z.strictObject({ integratorId: uuid });
export const keyParams = z.strictObject({ integratorId: uuid, keyId: uuid });

export const credential = z
  .object({ integratorId: uuid, keyId: uuid, publicKey: publicKeyOut })
  .meta({ id: 'Credential' });

const count = z.int().min(0);

/** DELETE /internal/v1/integrators/{id}: the erasure it started or found (docs/retention.md, "Erasure"). */
export const erasureJob = z
  .object({
    integratorId: uuid,
    state: z.enum(['running', 'completed', 'failed']),
    step: z.enum(erasureSteps).nullable().describe('where it is; null while no worker answered, or once it failed'),
    counts: z
      .object({
        deliveries: count,
        attempts: count,
        events: count,
        subscriptions: count,
        signingKeys: count,
        campaigns: count,
        cancelledDeliveries: count,
      })
      .nullable()
      .describe('what it erased so far; null while no worker answered, or once it failed'),
    startedAt: dateTime,
    closedAt: dateTime.nullable(),
  })
  .meta({ id: 'ErasureJob' });

export const subjectParams = z.strictObject({
  integratorId: uuid,
  subjectId: uuid.describe('the id the events name: a customer, account, user, beneficiary or transaction id'),
});

/** DELETE /internal/v1/integrators/{id}/subjects/{subjectId}: the erasure of the events that name it. */
export const subjectErasureJob = z
  .object({
    integratorId: uuid,
    subjectId: uuid,
    state: z.enum(['running', 'completed', 'failed']),
    step: z
      .enum(subjectErasureSteps)
      .nullable()
      .describe('where it is; null while no worker answered, or once it failed'),
    counts: z
      .object({ events: count, deliveries: count, attempts: count, cancelledDeliveries: count })
      .nullable()
      .describe('what it erased so far; null while no worker answered, or once it failed'),
    startedAt: dateTime,
    closedAt: dateTime.nullable(),
  })
  .meta({ id: 'SubjectErasureJob' });
