import { lookup } from 'node:dns/promises';
import { withTimeout } from '../util/with-timeout.js';

/** Returns every address of `hostname`; rejects (or returns []) when it has none. */
export type DnsLookup = (hostname: string) => Promise<string[]>;

export interface Resolver {
  /** All A and AAAA addresses of `hostname`, never empty; rejects with HostResolutionError. */
  resolve(hostname: string): Promise<string[]>;
  /** Whether HERALD_DNS_STATIC fixes this name's addresses: only such names may use HERALD_ALLOW_CIDRS. */
  isPinned(hostname: string): boolean;
}

export interface ResolverOptions {
  /** HERALD_DNS_STATIC: lower-case names without a trailing dot → addresses; consulted before DNS. */
  staticMap?: Readonly<Record<string, readonly string[]>>;
  dns?: DnsLookup;
  timeoutMs?: number;
}

export class HostResolutionError extends Error {
  override readonly name = 'HostResolutionError';
  constructor(
    readonly hostname: string,
    /** ENOTFOUND, ENODATA, EAI_AGAIN, ETIMEOUT, … */
    readonly code: string,
  ) {
    super(`${hostname} does not resolve (${code})`);
  }
}

/** getaddrinfo, not a DNS-only query, so /etc/hosts counts exactly as it would for any other client here. */
export const systemLookup: DnsLookup = async (hostname) => {
  const entries = await lookup(hostname, { all: true, order: 'verbatim' });
  return entries.map((e) => e.address);
};

const TIMED_OUT = Symbol('timed out');
const canonical = (hostname: string): string => hostname.toLowerCase().replace(/\.$/, '');

export function createResolver({
  staticMap = {},
  dns = systemLookup,
  timeoutMs = 5000,
}: ResolverOptions = {}): Resolver {
  return {
    isPinned: (hostname) => Object.hasOwn(staticMap, canonical(hostname)),
    async resolve(hostname) {
      const name = canonical(hostname);
      const fixed = Object.hasOwn(staticMap, name) ? staticMap[name] : undefined;
      if (fixed) return [...fixed];
      let found: string[] | typeof TIMED_OUT;
      try {
        // getaddrinfo cannot be cancelled: the bound frees the caller, the lookup finishes in the background.
        found = await withTimeout<string[] | typeof TIMED_OUT>(dns(name), timeoutMs, TIMED_OUT);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException | undefined)?.code;
        throw new HostResolutionError(name, typeof code === 'string' ? code : 'ERESOLVE');
      }
      if (found === TIMED_OUT) throw new HostResolutionError(name, 'ETIMEOUT');
      const unique = [...new Set(found)];
      if (unique.length === 0) throw new HostResolutionError(name, 'ENODATA');
      return unique;
    },
  };
}
