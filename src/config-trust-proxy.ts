import ipaddr from 'ipaddr.js';
import { z } from 'zod';

// proxy-addr's names for the usual private ranges (Fastify passes them through): loopback, link-local, unique-local.
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

const isRange = (s: string): boolean => NAMED_RANGES.has(s) || ipaddr.isValidCIDR(s) || ipaddr.isValid(s);

/**
 * HERALD_TRUST_PROXY → Fastify's `trustProxy`: `false` (unset, empty or `false`: the peer is the client), a hop count
 * (`1`: trust one proxy in front), or a comma-separated list of proxy addresses or CIDRs. `true` (trust any
 * X-Forwarded-For) is refused: every client could then choose the address it is counted under.
 */
export const trustProxySetting = z
  .string()
  .optional()
  .transform((raw, ctx): false | number | string[] => {
    const v = (raw ?? '').trim().toLowerCase();
    if (v === '' || v === 'false') return false;
    if (/^[0-9]+$/.test(v)) {
      const hops = Number(v);
      if (hops >= 1 && hops <= 100) return hops;
    } else {
      const ranges = v.split(',').map((s) => s.trim());
      const bad = ranges.filter((s) => !isRange(s));
      if (bad.length === 0) return ranges;
      if (v !== 'true') {
        ctx.addIssue({ code: 'custom', message: `not an IP address or CIDR: ${bad.map((s) => `"${s}"`).join(', ')}` });
        return z.NEVER;
      }
    }
    ctx.addIssue({
      code: 'custom',
      message: `expected false, a hop count (1-100) or a comma-separated list of proxy CIDRs, got "${raw ?? ''}"`,
    });
    return z.NEVER;
  });

/**
 * The setting as Fastify takes it. Fastify 5 ignores a numeric trustProxy (it trusts no hop), so a hop count becomes a
 * function trusting that many hops from the socket, whichever peer connected: proxy-addr's meaning of a count.
 */
export function fastifyTrustProxy(setting: false | number | readonly string[]): boolean | string[] | TrustHops {
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return setting === false ? false : [...setting];
}

type TrustHops = (address: string, hop: number) => boolean;
