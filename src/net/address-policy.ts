import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

export type AddressVerdict = { ok: true } | { ok: false; reason: string };

export interface AddressPolicy {
  /**
   * Whether a webhook may be sent to this resolved address (an IP string as DNS returns it). `pinned`: the address
   * is a HERALD_DNS_STATIC answer, the only kind the allowed ranges exempt.
   */
  check(address: string, options?: { pinned?: boolean }): AddressVerdict;
}

export class InvalidCidrError extends Error {
  override readonly name = 'InvalidCidrError';
}

/** Plain words for ipaddr.js range names, used in the messages integrators see. */
const RANGE_WORDS: Readonly<Record<string, string>> = {
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  multicast: 'a multicast',
  linkLocal: 'a link-local',
  loopback: 'a loopback',
  carrierGradeNat: 'a carrier-grade NAT (shared)',
  private: 'a private',
  reserved: 'a reserved or documentation',
  benchmarking: 'a benchmarking',
  uniqueLocal: 'a unique-local',
  rfc6145: 'an IPv4-translated',
  rfc6052: 'a NAT64 (IPv4-embedding)',
  '6to4': 'a 6to4 (IPv4-embedding)',
  teredo: 'a Teredo (IPv4-embedding)',
  discard: 'a discard-only',
};

/**
 * IPv6 blocks ipaddr.js calls "unicast" but that are not public destinations. ::/96 is the deprecated
 * IPv4-compatible form (`::10.0.0.1`), which some stacks still route to the embedded IPv4 address.
 */
const EXTRA_IPV6_RANGES: ReadonlyArray<readonly [string, string]> = [['::/96', 'an IPv4-compatible (IPv4-embedding)']];
const EXTRA_IPV6 = EXTRA_IPV6_RANGES.map(([cidr, words]) => [ipaddr.IPv6.parseCIDR(cidr), words] as const);
/** IANA allocates global unicast only from 2000::/3; anything else is unassigned or special. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

function parseCidr(text: string): Cidr {
  const trimmed = text.trim();
  // Four-part decimal only: "10.1/16" style shorthands are too easy to misread in an allowlist.
  if (ipaddr.IPv4.isValidCIDRFourPartDecimal(trimmed) || (trimmed.includes(':') && ipaddr.IPv6.isValidCIDR(trimmed))) {
    return ipaddr.parseCIDR(trimmed);
  }
  throw new InvalidCidrError(
    `invalid CIDR in the address allowlist: "${text}" (expected e.g. 127.0.0.1/32 or fd00::/8)`,
  );
}

function matches(address: Address, [range, bits]: Cidr): boolean {
  return address.kind() === range.kind() && address.match(range, bits);
}

function forbiddenReason(address: Address): string | null {
  const range = address.range();
  if (range !== 'unicast') return `${RANGE_WORDS[range] ?? `a special-purpose (${range})`} address`;
  if (address.kind() === 'ipv6') {
    const extra = EXTRA_IPV6.find(([cidr]) => matches(address, cidr));
    if (extra) return `${extra[1]} address`;
    if (!matches(address, GLOBAL_UNICAST_V6)) return 'not a global unicast address';
  }
  return null;
}

/**
 * Only globally routable unicast addresses may receive webhooks, so a subscription cannot aim Herald at its own
 * network (SSRF). `allowCidrs` (HERALD_ALLOW_CIDRS) exempts ranges for tests and local development, for pinned names
 * only: were any name resolving into them exempt, a development range left configured would open the internal
 * network behind it to every subscription whose host DNS points there.
 */
export function createAddressPolicy(allowCidrs: readonly string[]): AddressPolicy {
  const allowed = allowCidrs.map(parseCidr);
  return {
    check(text, { pinned = false } = {}) {
      let parsed: Address;
      try {
        parsed = ipaddr.parse(text);
      } catch {
        return { ok: false, reason: `"${text}" is not an IP address` };
      }
      // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) reaches the IPv4 host: judge that one.
      const address = parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress() ? parsed.toIPv4Address() : parsed;
      const inAllowed = allowed.some((cidr) => matches(address, cidr) || matches(parsed, cidr));
      if (inAllowed && pinned) return { ok: true };
      const reason = forbiddenReason(address);
      if (reason === null) return { ok: true };
      const why = inAllowed ? ' (HERALD_ALLOW_CIDRS exempts only the names HERALD_DNS_STATIC pins)' : '';
      return { ok: false, reason: `${text} is ${reason}${why}` };
    },
  };
}
