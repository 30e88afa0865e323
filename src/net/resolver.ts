import { withTimeout } from '../util/with-timeout.js';
import { createAresLookup, NEGATIVE_CODES, type DnsAnswer } from './ares-lookup.js';
import { createDnsCache, type DnsCacheOptions } from './dns-cache.js';
import { readHostsFile } from './hosts-file.js';
import { createTenantGate, TenantBusyError, type TenantGateOptions } from './tenant-gate.js';

export type { DnsAnswer } from './ares-lookup.js';

/** Every address of `hostname` (with the answer's TTL when known); rejects (or returns []) when it has none. */
export type DnsLookup = (hostname: string) => Promise<string[] | DnsAnswer>;

export interface Resolver {
  /**
   * All A and AAAA addresses of `hostname`, never empty; rejects with HostResolutionError. `tenant` (the integrator)
   * bounds how many lookups one caller has in flight, so that its slow zone delays only its own lookups.
   */
  resolve(hostname: string, tenant?: string): Promise<string[]>;
  /** Whether HERALD_DNS_STATIC fixes this name's addresses: only such names may use HERALD_ALLOW_CIDRS. */
  isPinned(hostname: string): boolean;
}

export interface ResolverOptions {
  /** HERALD_DNS_STATIC: lower-case names without a trailing dot → addresses; consulted before DNS. */
  staticMap?: Readonly<Record<string, readonly string[]>>;
  /** HERALD_DNS_SERVERS: the resolvers c-ares asks; empty: the system's. */
  servers?: readonly string[];
  /** A stand-in for DNS (tests): answers without `ttlSec` are not cached. Default: c-ares over `servers`. */
  dns?: DnsLookup;
  /** hosts(5) file read at creation and consulted after the static map; null: none. Default /etc/hosts, unless `dns`. */
  hostsFile?: string | null;
  /** The bound on one lookup, waiting for its tenant's turn included. */
  timeoutMs?: number;
  cache?: DnsCacheOptions;
  tenants?: TenantGateOptions;
}

export class HostResolutionError extends Error {
  override readonly name = 'HostResolutionError';
  constructor(
    readonly hostname: string,
    /** ENOTFOUND, ENODATA, ETIMEOUT, ESERVFAIL, ECONNREFUSED, EBUSY (the tenant has too many lookups waiting), … */
    readonly code: string,
  ) {
    super(`${hostname} does not resolve (${code})`);
  }
}

/** The tenant of lookups made without one (tests, tools): they share one lane. */
export const SHARED_TENANT = '';

const TIMED_OUT = Symbol('timed out');
const canonical = (hostname: string): string => hostname.toLowerCase().replace(/\.$/, '');

/** `promise`, or a rejection with ETIMEOUT once `signal` aborts (the promise itself goes on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, name: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(new HostResolutionError(name, 'ETIMEOUT'));
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

export function createResolver(options: ResolverOptions = {}): Resolver {
  const { staticMap = {}, timeoutMs = 5000 } = options;
  const dns = options.dns ?? createAresLookup({ servers: options.servers ?? [], timeoutMs });
  const hostsFile = options.hostsFile === undefined ? (options.dns ? null : '/etc/hosts') : options.hostsFile;
  const hosts = hostsFile === null ? new Map<string, readonly string[]>() : readHostsFile(hostsFile);
  const cache = createDnsCache(options.cache);
  const gate = createTenantGate(options.tenants);
  const inFlight = new Map<string, Promise<string[]>>();

  async function query(name: string): Promise<string[]> {
    let found: string[] | DnsAnswer | typeof TIMED_OUT;
    try {
      // Bounded here too, so that a slot and the in-flight entry free up even if a stand-in never settles.
      found = await withTimeout<string[] | DnsAnswer | typeof TIMED_OUT>(dns(name), timeoutMs, TIMED_OUT);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException | undefined)?.code;
      const known = typeof code === 'string' ? code : 'ERESOLVE';
      if (NEGATIVE_CODES.has(known)) cache.putNegative(name, known);
      throw new HostResolutionError(name, known);
    }
    if (found === TIMED_OUT) throw new HostResolutionError(name, 'ETIMEOUT');
    const answer = Array.isArray(found) ? { addresses: found } : found;
    const unique = [...new Set(answer.addresses)];
    if (unique.length === 0) {
      cache.putNegative(name, 'ENODATA');
      throw new HostResolutionError(name, 'ENODATA');
    }
    if (answer.ttlSec !== undefined) cache.putAnswer(name, unique, answer.ttlSec);
    return unique;
  }

  /** One query per name at a time: whoever asks while it runs shares its answer. */
  function shared(name: string): Promise<string[]> {
    const cached = fromCache(name);
    if (cached) return cached;
    const running = inFlight.get(name);
    if (running) return running;
    const started = query(name);
    inFlight.set(name, started);
    const forget = () => {
      if (inFlight.get(name) === started) inFlight.delete(name);
    };
    started.then(forget, forget);
    return started;
  }

  function fromCache(name: string): Promise<string[]> | undefined {
    const hit = cache.get(name);
    if (!hit) return undefined;
    return 'code' in hit
      ? Promise.reject(new HostResolutionError(name, hit.code))
      : Promise.resolve([...hit.addresses]);
  }

  return {
    isPinned: (hostname) => Object.hasOwn(staticMap, canonical(hostname)),
    async resolve(hostname, tenant = SHARED_TENANT) {
      const name = canonical(hostname);
      const fixed = Object.hasOwn(staticMap, name) ? staticMap[name] : hosts.get(name);
      if (fixed) return [...fixed];
      const cached = fromCache(name);
      if (cached) return cached;
      // The tenant's turn and the query share one bound: a lookup never takes longer than timeoutMs in all.
      const deadline = AbortSignal.timeout(timeoutMs);
      try {
        const answered = gate.run(tenant, () => shared(name), deadline);
        return [...(await untilAborted(answered, deadline, name))];
      } catch (err) {
        if (err instanceof TenantBusyError) throw new HostResolutionError(name, 'EBUSY');
        if (err instanceof HostResolutionError) throw err;
        if (deadline.aborted) throw new HostResolutionError(name, 'ETIMEOUT');
        throw err;
      }
    },
  };
}
