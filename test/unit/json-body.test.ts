// inspectJsonBody: the checks every JSON request body passes before it is parsed (src/api/json-body.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { inspectJsonBody, JSON_DEPTH_LIMIT } from '../../src/api/json-body.js';

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

describe('inspectJsonBody', () => {
  it('passes a good body through with the exact text of its top-level members', () => {
    const { error, members, text } = inspectJsonBody(bytes('{"id":"x","data":{"n":1.50e3, "s":"\uFFFD"}}'));
    assert.equal(error, undefined);
    assert.equal(members.get('data'), '{"n":1.50e3, "s":"\uFFFD"}');
    assert.equal(text, '{"id":"x","data":{"n":1.50e3, "s":"\uFFFD"}}');
  });

  it('tells a U+FFFD the sender encoded from one put in place of invalid bytes, and names the latter', () => {
    const body = bytes('{"data":{"ok":"\uFFFD\uFFFD", "bad":["x', [0xc3], '"]}}');
    assert.equal(inspectJsonBody(body).error?.message, 'body.data.bad[0]: not valid UTF-8');
    const overlong = bytes('{"k\u00e9":1,"', [0xc0, 0xaf], '":2}');
    assert.match(inspectJsonBody(overlong).error?.message ?? '', /^body\["\uFFFD+"\]: not valid UTF-8$/);
  });

  it(`answers a 400 naming the limit past ${JSON_DEPTH_LIMIT} levels, however deep`, () => {
    for (const depth of [JSON_DEPTH_LIMIT + 1, 100_000]) {
      const error = inspectJsonBody(bytes(`${'['.repeat(depth)}${']'.repeat(depth)}`)).error;
      assert.equal(error?.status, 400);
      assert.match(error?.message ?? '', new RegExp(`^body(\\[0\\]){${JSON_DEPTH_LIMIT}}: .*the limit is 64`));
    }
    assert.equal(
      inspectJsonBody(bytes(`${'['.repeat(JSON_DEPTH_LIMIT)}${']'.repeat(JSON_DEPTH_LIMIT)}`)).error,
      undefined,
    );
  });
});
