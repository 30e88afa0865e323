import { z } from 'zod';

/**
 * The headers of an integrator POST: an optional Idempotency-Key (src/api/plugins/app/idempotency.ts). Loose: every
 * other header passes through as it came (the signature's among them).
 */
export const idempotencyHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1–255 visible ASCII characters')
    .optional()
    .describe(
      'makes the request safe to send again: a repeat within 24 h with the same key and the same method, path and ' +
        'body answers the first answer (Idempotent-Replayed: true); with another request 422 ' +
        'idempotency_key_reused; while the first still runs 409 idempotency_in_flight with Retry-After',
    ),
});
