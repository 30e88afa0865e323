// The receiver helper integrators import (or copy, with src/crypto/p256.ts) to verify Herald's deliveries.
export {
  DEFAULT_TOLERANCE_SEC,
  WEBHOOK_ALGORITHM,
  WEBHOOK_HEADERS,
  WebhookVerificationError,
  WebhookVerifier,
  signedInput,
  type VerifyOptions,
  type WebhookEvent,
  type WebhookHeaders,
  type WebhookVerificationErrorCode,
} from './webhook-verifier.js';
export { InvalidKeyError } from '../crypto/p256.js';
