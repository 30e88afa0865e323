// Issue 33 item 8: the OpenAPI document's pattern for a callback URL never matches a URL the callback-URL policy
// refuses before DNS (an IP literal, a special-use name, a bad port…), so a schema fuzzer's valid URL is a valid URL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { checkCallbackUrlSyntax } from '../../src/net/callback-url.js';
import { CALLBACK_URL_PATTERN } from '../../src/net/callback-url-pattern.js';
import { INTERNAL_SUFFIXES } from '../../src/net/hostname-rules.js';

// JSON Schema reads a pattern as ECMA-262, without flags.
const pattern = new RegExp(CALLBACK_URL_PATTERN);

/** A host name of `length` characters (194 to 255): three 63-character labels and a last one of the rest. */
const longHost = (length: number): string =>
  `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(length - 192)}`;

const ACCEPTED = [
  'https://hooks.example.com/herald',
  'https://hooks.example.com',
  'https://HOOKS.Example.COM/Path?x=1&y=%2F',
  'https://hooks.example.com./trailing-dot',
  'https://a.b.c.d.e.f.g.example.com:8443/deep/path',
  'https://a--b.example.com/',
  'https://1.2.3.example.com/',
  'https://receiver.io:65535/',
  'https://receiver.io:1/',
  `https://${'a'.repeat(63)}.com/`,
  `https://${longHost(253)}/`,
];

const REFUSED = [
  'https://127.0.0.1/',
  'https://0/',
  'https://2130706433/',
  'https://0x7f.1/',
  'https://hooks.example.123/',
  'https://[::1]/',
  'https://[fd00::1]:8443/',
  'https://localhost/',
  'https://hooks.LOCAL/',
  'https://a.home.arpa/',
  'https://x.test./',
  'https://single-label/',
  'https://-bad.example.com/',
  'https://bad-.example.com/',
  'https://a..example.com/',
  `https://${'a'.repeat(64)}.com/`,
  `https://${longHost(254)}/`,
  'https://xn--a.example.com/',
  'https://hooks.example.com:0/',
  'https://hooks.example.com:65536/',
  'https://hooks.example.com/#fragment',
  'https://hooks.example.com/a b',
  'https://hooks.example.com/a\\b',
  'https://user@hooks.example.com/',
  'https://%68ooks.example.com/',
  'http://hooks.example.com/',
];

/** URL-shaped strings, many of them near a rule's edge: host labels of every kind, ports, paths. */
const label = fc.oneof(
  { arbitrary: fc.stringMatching(/^[a-z][a-z0-9-]{0,6}[a-z0-9]$/), weight: 6 },
  { arbitrary: fc.stringMatching(/^[a-zA-Z0-9-]{1,8}$/), weight: 2 },
  { arbitrary: fc.stringMatching(/^[0-9]{1,3}$/), weight: 1 },
  {
    arbitrary: fc.constantFrom('xn--bcher-kva', 'xn--a', 'XN--b', '0x7f', 'a'.repeat(63), 'b'.repeat(64), '', '-', 'é'),
    weight: 1,
  },
  { arbitrary: fc.constantFrom(...INTERNAL_SUFFIXES, ...INTERNAL_SUFFIXES.map((s) => s.toUpperCase())), weight: 1 },
);
const host = fc.array(label, { minLength: 1, maxLength: 6 }).map((labels) => labels.join('.'));
const port = fc.oneof(
  { arbitrary: fc.constant(''), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: 70_000 }).map((n) => `:${n}`), weight: 2 },
  { arbitrary: fc.constantFrom(':', ':0443', ':x'), weight: 1 },
);
const path = fc.oneof(
  { arbitrary: fc.constant(''), weight: 1 },
  { arbitrary: fc.stringMatching(/^[/?][a-zA-Z0-9%._~!$&'()*+,;=:@/?-]{0,12}$/), weight: 3 },
  { arbitrary: fc.stringMatching(/^[/?][a-zA-Z0-9%._~!$&'()*+,;=:@/?#\\ "<>-]{0,12}$/), weight: 1 },
);
const scheme = fc.oneof(
  { arbitrary: fc.constant('https://'), weight: 6 },
  { arbitrary: fc.constantFrom('HTTPS://', 'http://', 'https:/', 'https:///'), weight: 1 },
);
const candidate = fc
  .tuple(scheme, host, fc.boolean(), port, path)
  .map(([s, h, dot, p, rest]) => `${s}${h}${dot ? '.' : ''}${p}${rest}`);

describe('the callback URL pattern of the OpenAPI document', () => {
  it('matches the URLs the policy accepts without DNS, short of internationalised names', () => {
    for (const url of ACCEPTED) {
      assert.ok(checkCallbackUrlSyntax(url).ok, `the policy accepts ${url}`);
      assert.ok(pattern.test(url), `the pattern matches ${url}`);
    }
  });

  it('matches none of the URLs the policy refuses', () => {
    for (const url of REFUSED) {
      assert.equal(checkCallbackUrlSyntax(url).ok, false, `the policy refuses ${url}`);
      assert.ok(!pattern.test(url), `the pattern leaves out ${url}`);
    }
  });

  it('never matches a generated URL the policy refuses', () => {
    let matched = 0;
    fc.assert(
      fc.property(candidate, (url) => {
        if (!pattern.test(url)) return;
        matched += 1;
        const verdict = checkCallbackUrlSyntax(url);
        assert.ok(verdict.ok, `${url} matches the pattern but is refused: ${verdict.ok ? '' : verdict.message}`);
      }),
      { numRuns: 10_000, seed: 33 },
    );
    assert.ok(matched > 1_000, `${matched} generated URLs matched the pattern`);
  });

  it('is read the same by the JSON Schema tools of other languages: no flags, no Unicode classes', () => {
    assert.doesNotMatch(CALLBACK_URL_PATTERN, /\\p\{|\(\?<|\(\?[imsux]/);
  });
});
