import { domainToUnicode } from 'node:url';
import type { AddressPolicy } from './address-policy.js';
import { hostnameProblem } from './hostname-rules.js';
import { HostResolutionError, type Resolver } from './resolver.js';

/** Stable rule names: API clients see them in `invalid_callback_url` messages, so never rename one. */
export const CallbackUrlRule = {
  tooLong: 'too_long',
  notAUrl: 'not_a_url',
  ambiguousUrl: 'ambiguous_url',
  httpsRequired: 'https_required',
  credentialsNotAllowed: 'credentials_not_allowed',
  fragmentNotAllowed: 'fragment_not_allowed',
  ipLiteralNotAllowed: 'ip_literal_not_allowed',
  internalHostname: 'internal_hostname',
  invalidHostname: 'invalid_hostname',
  invalidPort: 'invalid_port',
  doesNotResolve: 'does_not_resolve',
  nonPublicAddress: 'non_public_address',
} as const;
export type CallbackUrlRule = (typeof CallbackUrlRule)[keyof typeof CallbackUrlRule];

/** `message` is safe to show the caller; `detail` (resolved addresses, DNS codes) is for logs only. */
export type Rejection = { ok: false; rule: CallbackUrlRule; message: string; detail?: string };
export type SyntaxVerdict = { ok: true; url: URL; hostname: string } | Rejection;
export type HostVerdict = { ok: true; addresses: string[] } | Rejection;
export type CallbackUrlVerdict = { ok: true; url: URL; hostname: string; addresses: string[] } | Rejection;

export interface CallbackUrlPolicy {
  /** The rules that need no network (spec §6.3 items 1–6). */
  checkSyntax(url: string): SyntaxVerdict;
  /**
   * Item 7: resolves `hostname` and requires every address to be public. The HTTP client runs it per connection.
   * `tenant` (the integrator) is whose lookups this one waits behind when its DNS is slow (src/net/resolver.ts).
   */
  checkHost(hostname: string, tenant?: string): Promise<HostVerdict>;
  /** checkSyntax, then checkHost. */
  check(url: string, tenant?: string): Promise<CallbackUrlVerdict>;
}

export const MAX_CALLBACK_URL_LENGTH = 2048;

const reject = (rule: CallbackUrlRule, message: string, detail?: string): Rejection =>
  detail === undefined ? { ok: false, rule, message } : { ok: false, rule, message, detail };

/** The URL parser silently drops whitespace and control characters; the stored URL must be exactly what we send. */
const INVISIBLE = /[\s\p{Cc}\p{Cf}]/u;

/**
 * Why parsers other than WHATWG's could read `raw` as another host or with userinfo, or undefined. `url` is the
 * WHATWG reading. RFC 3986 takes the authority between `https://` and the first `/`, `?` or `#`, and the host after
 * its last `@`; the canonical host must be that host, only lower-cased, IDNA-encoded or without a trailing dot.
 */
function ambiguity(raw: string, url: URL): string | undefined {
  if (raw.includes('\\')) return 'it contains a backslash, which URL parsers read as "/" or as data';
  if (!/^https:\/\/[^/]/i.test(raw)) return 'it must start with https:// followed by the host';
  const authority = raw.slice('https://'.length).split(/[/?#]/, 1)[0] ?? '';
  if (authority.includes('@')) return 'its authority contains "@"';
  if (authority.includes('%')) return 'its host is percent-encoded';
  const host = authority.startsWith('[')
    ? authority.slice(0, authority.indexOf(']') + 1)
    : authority.replace(/:[^:]*$/, '');
  const spelled = host.normalize('NFC').toLowerCase().replace(/\.$/, '');
  const canonical = url.hostname.replace(/\.$/, '');
  if (spelled !== canonical && spelled !== domainToUnicode(canonical))
    return `its host ${JSON.stringify(host)} reads as ${canonical} once normalised`;
  return undefined;
}

export function checkCallbackUrlSyntax(raw: string): SyntaxVerdict {
  if (raw.length > MAX_CALLBACK_URL_LENGTH) {
    return reject('too_long', `the callback URL is longer than ${MAX_CALLBACK_URL_LENGTH} characters`);
  }
  let url: URL;
  if (INVISIBLE.test(raw)) {
    return reject('not_a_url', 'the callback URL contains whitespace or a control character that parsers drop');
  }
  try {
    url = new URL(raw);
  } catch {
    return reject('not_a_url', 'the callback URL is not a valid absolute URL');
  }
  if (url.protocol !== 'https:') return reject('https_required', 'the callback URL must use https://');
  if (url.username !== '' || url.password !== '') {
    return reject('credentials_not_allowed', 'the callback URL must not contain a username or password');
  }
  // Any `#` starts a fragment, including an empty one that URL#hash reports as ''.
  if (raw.includes('#')) return reject('fragment_not_allowed', 'the callback URL must not contain a #fragment');
  const problem = hostnameProblem(url.hostname);
  if (problem?.kind === 'ip_literal') {
    return reject(
      'ip_literal_not_allowed',
      `the callback URL needs a DNS hostname, not an IP address (${problem.detail})`,
    );
  }
  if (problem?.kind === 'internal') {
    return reject('internal_hostname', `the callback URL must name a public host: ${problem.detail}`);
  }
  if (problem?.kind === 'invalid')
    return reject('invalid_hostname', `the callback URL hostname is invalid: ${problem.detail}`);
  const ambiguous = ambiguity(raw, url);
  if (ambiguous)
    return reject('ambiguous_url', `the callback URL is read differently by different parsers: ${ambiguous}`);
  // Any port is allowed (receivers such as hooks.example.com:8443 are common): only the address matters for SSRF,
  // and that is checked for every connection. Port 0 cannot be connected to at all.
  if (url.port === '0') return reject('invalid_port', 'the callback URL port must be between 1 and 65535');
  return { ok: true, url, hostname: url.hostname.toLowerCase().replace(/\.$/, '') };
}

export function createCallbackUrlPolicy(deps: { resolver: Resolver; addressPolicy: AddressPolicy }): CallbackUrlPolicy {
  const { resolver, addressPolicy } = deps;

  async function checkHost(hostname: string, tenant?: string): Promise<HostVerdict> {
    let addresses: string[];
    try {
      addresses = await resolver.resolve(hostname, tenant);
    } catch (err) {
      if (!(err instanceof HostResolutionError)) throw err;
      return reject('does_not_resolve', `the callback host ${hostname} does not resolve`, err.code);
    }
    // Every address, not just the first: a client may connect to any of them.
    const pinned = resolver.isPinned(hostname);
    for (const address of addresses) {
      const verdict = addressPolicy.check(address, { pinned });
      if (!verdict.ok) {
        // The message never names the address: an API caller must not learn what internal names resolve to.
        return reject(
          'non_public_address',
          `the callback host ${hostname} resolves to a non-public address`,
          `${address}: ${verdict.reason}`,
        );
      }
    }
    return { ok: true, addresses };
  }

  return {
    checkSyntax: checkCallbackUrlSyntax,
    checkHost,
    async check(raw, tenant) {
      const syntax = checkCallbackUrlSyntax(raw);
      if (!syntax.ok) return syntax;
      const host = await checkHost(syntax.hostname, tenant);
      return host.ok ? { ...syntax, addresses: host.addresses } : host;
    },
  };
}
