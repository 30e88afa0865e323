import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface FailureLimiterOptions {
  /** Failed authentications allowed per client address within one window. */
  readonly limit: number;
  readonly windowMs: number;
  /** Addresses tracked at once; the oldest window is dropped first. */
  readonly maxAddresses?: number;
  readonly now?: () => number;
}

/**
 * Counts failed authentications per client address in fixed windows. Once an address reaches `limit` failures,
 * `retryAfterSec` says how long it must wait (until its window ends); a success does not reset the count.
 * Per process: with N instances an address gets at most N × limit tries per window.
 */
export function createFailureLimiter(opts: FailureLimiterOptions) {
  const now = opts.now ?? Date.now;
  const max = opts.maxAddresses ?? 100_000;
  const windows = new Map<string, { start: number; count: number }>();

  const current = (address: string, t: number) => {
    const w = windows.get(address);
    return w && t - w.start < opts.windowMs ? w : undefined;
  };

  return {
    /** Seconds until `address` may try again, or 0 when it is not blocked. */
    retryAfterSec(address: string): number {
      const t = now();
      const w = current(address, t);
      return w && w.count >= opts.limit ? Math.max(1, Math.ceil((w.start + opts.windowMs - t) / 1000)) : 0;
    },
    record(address: string): void {
      const t = now();
      const w = current(address, t);
      if (w) {
        w.count++;
        return;
      }
      windows.delete(address);
      if (windows.size >= max) windows.delete(windows.keys().next().value as string);
      windows.set(address, { start: t, count: 1 });
    },
  };
}

export type FailureLimiter = ReturnType<typeof createFailureLimiter>;

/**
 * The address a client's failures count under: an IPv4 address as is (also when IPv4-mapped), an IPv6 address by its
 * /64, since one subscriber usually holds a whole /64 and could otherwise count under 2^64 fresh addresses.
 */
export function failureAddressKey(ip: string): string {
  // The common case without parsing: node gives an IPv4 peer in dotted decimal (a flood of refusals comes through here).
  if (isIPv4(ip)) return ip;
  if (!ipaddr.isValid(ip)) return ip;
  const addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv4') return addr.toString();
  const v6 = addr as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${new ipaddr.IPv6([...v6.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}
