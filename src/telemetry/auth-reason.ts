// The authenticator explains a rejection in words for the log; metrics need a small fixed set of reasons.
const REASONS: readonly (readonly [RegExp, string])[] = [
  [/^missing header/, 'missing_header'],
  [/^X-Pubkey/, 'malformed_pubkey'],
  [/^X-Timestamp is not/, 'malformed_timestamp'],
  [/^X-Timestamp is/, 'stale_timestamp'],
  [/^X-Signature/, 'malformed_signature'],
  [/^unknown or revoked key/, 'unknown_key'],
  [/^bad signature/, 'bad_signature'],
  [/^replayed/, 'replayed'],
  [/^admin token/, 'admin_token'],
];

/** The metric label of an authentication failure's cause; `other` for a cause this table does not know. */
export function authFailureReason(cause: string): string {
  return REASONS.find(([pattern]) => pattern.test(cause))?.[1] ?? 'other';
}
