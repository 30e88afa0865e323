import { UsageError } from './support.js';
import type { OptionSpec } from './types.js';

// The flags several commands take, declared once so that each is named, parsed and described the same everywhere.

export const jsonFlag = {
  type: 'boolean',
  help: 'print JSON (the API answer) instead of text',
} as const satisfies OptionSpec;

export const keyFlag = {
  type: 'string',
  value: 'file',
  help: 'the integrator private key (PEM); else HERALD_KEY_FILE, HERALD_PRIVATE_KEY, .data/integrator.pem',
} as const satisfies OptionSpec;

/** Every command signed with the integrator's key. */
export const signedOptions = { json: jsonFlag, key: keyFlag } as const;

/** Every listing. */
export const listingOptions = {
  limit: { type: 'string', value: 'n', help: 'items per page, 1 to 250 (default 100)' },
  cursor: { type: 'string', value: 'cursor', help: 'the page after this cursor (the `more:` line of a page)' },
  all: { type: 'boolean', help: 'every page' },
  json: jsonFlag,
} as const satisfies Record<string, OptionSpec>;

/** A listing's exclusive bounds on createdAt. */
export const createdOptions = {
  after: { type: 'string', value: 'time', help: 'created after this ISO time (exclusive)' },
  before: { type: 'string', value: 'time', help: 'created before this ISO time (exclusive)' },
} as const satisfies Record<string, OptionSpec>;

export const deliveryStatusFlag = {
  type: 'string',
  value: 'status',
  help: 'pending, succeeded, failed or cancelled',
} as const satisfies OptionSpec;

export const eventTypeFlag = {
  type: 'string',
  multiple: true,
  value: 'type',
  help: 'an event type; repeat it, or give a comma-separated list (none: every subscribable type)',
} as const satisfies OptionSpec;

/** `--event-type a,b --event-type c` → `[a, b, c]`; undefined when not given. */
export const eventTypesOf = (value: unknown): string[] | undefined =>
  (value as string[] | undefined)?.flatMap((t) => t.split(',')).filter((t) => t !== '');

/** A flag's whole-number value within bounds; undefined when not given. */
export function integerValue(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(String(value)) || n < min || n > max)
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  return n;
}
