import { isIP } from 'node:net';

/**
 * Suffixes that never name a public receiver: RFC 6761 special-use names (localhost, test, invalid, example),
 * RFC 6762 (local), RFC 8375 (home.arpa), RFC 7686 (onion), RFC 9476 (alt), ICANN's reserved `internal`, and the
 * private-network suffixes seen in the wild. Matched as whole labels, so `example.com` is fine but `x.example` is not.
 */
export const INTERNAL_SUFFIXES: readonly string[] = [
  'localhost',
  'local',
  'internal',
  'localdomain',
  'home.arpa',
  'lan',
  'corp',
  'intranet',
  'private',
  'test',
  'invalid',
  'example',
  'onion',
  'alt',
];

/** Letters, digits and inner hyphens (LDH); punycode `xn--` labels pass as they are LDH too. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_NAME_LENGTH = 253;

export type HostnameProblem = { kind: 'ip_literal' | 'internal' | 'invalid'; detail: string } | null;

/**
 * Judges a WHATWG-parsed hostname. The URL parser has already turned every IPv4 spelling (2130706433, 0x7f.1,
 * 017700000001, 127.1, full-width digits, percent-encoding) into dotted decimal, so `isIP` sees them all.
 */
export function hostnameProblem(hostname: string): HostnameProblem {
  if (hostname.startsWith('[') || isIP(hostname) !== 0) {
    return { kind: 'ip_literal', detail: `${hostname} is an IP address literal` };
  }
  // Case and the root dot do not change which zone a name is in.
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === '') return { kind: 'invalid', detail: 'the hostname is empty' };
  if (name.length > MAX_NAME_LENGTH) return { kind: 'invalid', detail: 'the hostname is longer than 253 characters' };
  const labels = name.split('.');
  const bad = labels.find((label) => !LABEL.test(label));
  if (bad !== undefined) {
    return {
      kind: 'invalid',
      detail: `"${bad}" is not a valid hostname label (letters, digits and inner hyphens, 1 to 63 characters)`,
    };
  }
  const suffix = INTERNAL_SUFFIXES.find((s) => name === s || name.endsWith(`.${s}`));
  if (suffix !== undefined)
    return { kind: 'internal', detail: `${name} is a special-use or internal name (.${suffix})` };
  // Single labels are completed by search domains, i.e. they name hosts on the local network.
  if (labels.length < 2) return { kind: 'internal', detail: `${name} is a single-label (local) name` };
  return null;
}
