import { Resolver, type RecordWithTtl } from 'node:dns';

/** Addresses of a name, with the TTL (seconds) of the answer when known: only then is it cached. */
export interface DnsAnswer {
  addresses: string[];
  ttlSec?: number;
}

/** Codes that say the name has no address, rather than that nobody answered: cacheable as negative answers. */
export const NEGATIVE_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'ENODATA']);

export interface AresLookupOptions {
  /** `ip`, `ip:port` or `[ipv6]:port`; empty: the system's (c-ares reads /etc/resolv.conf). */
  servers?: readonly string[];
  /** The bound on a whole lookup; c-ares' own timeouts are set to give up within it. */
  timeoutMs: number;
}

type Family = { records: RecordWithTtl[] } | { code: string };

const codeOf = (err: NodeJS.ErrnoException): string => (typeof err.code === 'string' ? err.code : 'ERESOLVE');

/**
 * A, then AAAA, through c-ares: its queries are sockets and timers on the event loop, not getaddrinfo calls that each
 * hold one of libuv's four pool threads (shared with file and crypto work) until a slow zone answers (issue 42).
 */
export function createAresLookup({ servers = [], timeoutMs }: AresLookupOptions): (name: string) => Promise<DnsAnswer> {
  // c-ares doubles its timeout on each try: 1 + 2 (+ jitter) fifths of the bound, so it gives up before the caller.
  const resolver = new Resolver({ timeout: Math.max(1, Math.floor(timeoutMs / 5)), tries: 2 });
  if (servers.length > 0) resolver.setServers([...servers]);

  const query = (name: string, family: 4 | 6): Promise<Family> =>
    new Promise((settle) => {
      const done = (err: NodeJS.ErrnoException | null, records: RecordWithTtl[]) =>
        settle(err ? { code: codeOf(err) } : { records });
      if (family === 4) resolver.resolve4(name, { ttl: true }, done);
      else resolver.resolve6(name, { ttl: true }, done);
    });

  return async (hostname) => {
    // Absolute: a callback host is a public name, never one of resolv.conf's search domains appended to it.
    const [v4, v6] = await Promise.all([query(`${hostname}.`, 4), query(`${hostname}.`, 6)]);
    const records = [v4, v6].flatMap((r) => ('records' in r ? r.records : []));
    const failed = [v4, v6].flatMap((r) => ('code' in r ? [r.code] : []));
    if (records.length > 0) {
      // One family went unanswered (timeout, SERVFAIL): keep what came, for the cache's floor only.
      const partial = failed.some((code) => !NEGATIVE_CODES.has(code));
      const ttlSec = partial ? 0 : Math.min(...records.map((r) => r.ttl));
      return { addresses: records.map((r) => r.address), ttlSec };
    }
    const code = failed.every((c) => NEGATIVE_CODES.has(c))
      ? failed.includes('ENOTFOUND')
        ? 'ENOTFOUND'
        : 'ENODATA'
      : (failed.find((c) => !NEGATIVE_CODES.has(c)) ?? 'ERESOLVE');
    throw Object.assign(new Error(`${hostname}: ${code}`), { code });
  };
}
