import { isIPv4, isIPv6 } from 'node:net';
import { z } from 'zod';

const validPort = (port: string): boolean => /^[0-9]{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535;

/** Whether `entry` is a server as c-ares' setServers takes it: `ip`, `ip:port`, `[ipv6]` or `[ipv6]:port`. */
function isServer(entry: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::([^:]*))?$/.exec(entry);
  if (bracketed) return isIPv6(bracketed[1] ?? '') && (bracketed[2] === undefined || validPort(bracketed[2]));
  if (isIPv4(entry) || isIPv6(entry)) return true;
  const [host = '', port = '', ...rest] = entry.split(':');
  return rest.length === 0 && isIPv4(host) && validPort(port);
}

/**
 * HERALD_DNS_SERVERS → the resolvers callback hosts are looked up with, in order (src/net/resolver.ts): unset or
 * empty = the system's (/etc/resolv.conf). Checked here, because setServers would otherwise throw at the first lookup
 * of a process that had already started.
 */
export const dnsServers = z
  .string()
  .optional()
  .transform((raw, ctx): string[] => {
    const entries = (raw ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    const bad = entries.filter((s) => !isServer(s));
    if (bad.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `expected ip, ip:port or [ipv6]:port, comma-separated; not a server: ${bad.map((s) => `"${s}"`).join(', ')}`,
      });
      return z.NEVER;
    }
    return entries;
  });
