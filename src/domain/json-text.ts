/**
 * One JSON value as text, carried exactly as it was received (numbers, escapes, key order and whitespace kept):
 * never parsed and re-encoded on its way to the stored event, the listing and the delivery body.
 */
export type JsonText = string & { readonly __brand: 'JsonText' };

/** Herald's own values (test events, fixtures): serialised once by JSON.stringify; undefined becomes null. */
export const jsonTextOf = (value: unknown): JsonText => (JSON.stringify(value) ?? 'null') as JsonText;

/** Text cut from a request body that the JSON parser accepted (see src/util/json-scan.ts). */
export const receivedJsonText = (text: string): JsonText => text as JsonText;

export const NULL_JSON = 'null' as JsonText;
