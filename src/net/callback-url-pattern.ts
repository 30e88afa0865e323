import { INTERNAL_SUFFIXES } from './hostname-rules.js';

// The callback URL rules (src/net/callback-url.ts) that need no DNS, as one JSON Schema pattern for the OpenAPI
// document: a generator or a client then knows which strings the API takes. JSON Schema patterns take no flags, so
// case-insensitive parts are spelled out, and the pattern is read by ECMA-262 and Python alike (no \p, no flags).

/** `home.arpa` → `[Hh][Oo][Mm][Ee]\.[Aa][Rr][Pp][Aa]`. */
const anyCase = (s: string): string =>
  [...s].map((c) => (/[a-z]/.test(c) ? `[${c.toUpperCase()}${c}]` : c === '.' ? '\\.' : c)).join('');

/** An `xn--` label must be valid Punycode, which a pattern cannot tell: the pattern leaves such labels out. */
const NOT_ACE = '(?![Xx][Nn]--)';
const LABEL = `${NOT_ACE}[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?`;
/** The last label starts with a letter: a numeric one makes the WHATWG parser read the host as an IPv4 address. */
const LAST_LABEL = `${NOT_ACE}[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?`;
/** No name in a special-use or internal zone (localhost, .test, .internal…). */
const NOT_INTERNAL = `(?!(?:[A-Za-z0-9-]+\\.)*(?:${INTERNAL_SUFFIXES.map(anyCase).join('|')})\\.?(?:[:/?]|$))`;
/** At most 253 characters before the port, path or end (a trailing dot aside). */
const HOST_LENGTH = '(?![^/?#:]{254})';
/** Two labels at least: a single label is completed by search domains, i.e. names a local host. */
const HOST = `${HOST_LENGTH}${NOT_INTERNAL}(?:${LABEL}\\.)+${LAST_LABEL}\\.?`;
const PORT = '(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))?';
/** RFC 3986 path and query characters (no `#`, no backslash, no whitespace or control character), `%` + 2 hex digits. */
const PATH_AND_QUERY = "(?:[/?](?:[A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*)?";

/**
 * What the callback URL policy accepts before any DNS lookup, short of internationalised names (`bücher.example`
 * and its `xn--` form are accepted, but not described here): https, a DNS name of two labels or more that is neither
 * an IP literal nor special-use, an optional port 1–65535, then an optional path and query.
 */
export const CALLBACK_URL_PATTERN = `^[Hh][Tt][Tt][Pp][Ss]://${HOST}${PORT}${PATH_AND_QUERY}$`;
