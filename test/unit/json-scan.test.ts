// The pre-parse JSON scanner (src/util/json-scan.ts): member texts, nesting depth, number range, paths.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { scanJson } from '../../src/util/json-scan.js';

const scan = (text: string, maxDepth = 64, badCharAt?: number) =>
  scanJson(text, { maxDepth, ...(badCharAt === undefined ? {} : { badCharAt }) });

/** `depth` arrays, each holding the next, around `inner`. */
const nested = (depth: number, inner = '0') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

/** The deepest nesting of arrays and objects in a parsed value, counted without recursion. */
function depthOf(value: unknown): number {
  let max = 0;
  const todo: Array<[unknown, number]> = [[value, 0]];
  for (let next = todo.pop(); next; next = todo.pop()) {
    const [v, d] = next;
    if (v === null || typeof v !== 'object') continue;
    max = Math.max(max, d + 1);
    for (const child of Object.values(v)) todo.push([child, d + 1]);
  }
  return max;
}

describe('scanJson', () => {
  it('cuts out the exact text of each top-level member, as sent', () => {
    const text = '{ "id" : 1, "data" :\n {"b":1.50,"a":[-0, 1E+2, "\\u00e9\\ud800"]} , "x":null}';
    const { problem, members } = scan(text);
    assert.equal(problem, null);
    assert.deepEqual(
      [...members],
      [
        ['id', '1'],
        ['data', '{"b":1.50,"a":[-0, 1E+2, "\\u00e9\\ud800"]}'],
        ['x', 'null'],
      ],
    );
  });

  it('reads member names as JSON.parse does: escapes decoded, a repeated name keeps the last value', () => {
    const { members } = scan('{"data":1,"d\\u0061ta":"two","\\"q":[]}');
    assert.equal(members.get('data'), '"two"');
    assert.equal(members.get('"q'), '[]');
    assert.equal(JSON.parse('{"data":1,"d\\u0061ta":"two"}').data, 'two');
  });

  it('lists the items of a top-level array', () => {
    assert.deepEqual(scan(' [1, {"a":[2]}, "x,]" ,true] ').items, ['1', '{"a":[2]}', '"x,]"', 'true']);
  });

  it('refuses nesting past the limit with the path of the first container too deep', () => {
    assert.equal(scan(nested(64)).problem, null);
    assert.deepEqual(scan(nested(65)).problem, { path: `${'[0]'.repeat(64)}`, reason: 'too_deep' });
    assert.deepEqual(scan('{"data":{"a b":[{"c":[]}]}}', 4).problem, {
      path: '.data["a b"][0].c',
      reason: 'too_deep',
    });
    // Brackets inside strings are text, not nesting.
    assert.equal(scan(`{"s":"${'['.repeat(100)}"}`, 2).problem, null);
  });

  it('refuses numbers beyond a 64-bit float, with their path; big integers and underflow are carried', () => {
    assert.deepEqual(scan('{"data":{"n":[1, -1e400]}}').problem, { path: '.data.n[1]', reason: 'number_out_of_range' });
    assert.deepEqual(scan('1E309').problem, { path: '', reason: 'number_out_of_range' });
    assert.deepEqual(scan(`[0,1${'0'.repeat(309)}]`).problem, { path: '[1]', reason: 'number_out_of_range' });
    assert.equal(scan(`[1${'0'.repeat(307)}, 0.${'0'.repeat(400)}1]`).problem, null);
    for (const ok of ['123456789012345678901234567890', '1e-400', '-0', '1.7976931348623157e308', 'Infinity', '-x']) {
      assert.equal(scan(`[${ok}]`).problem, null, ok);
    }
  });

  it('names the path of a substituted character, also in a member name', () => {
    const text = '{"data":{"k":["ok","a\uFFFDb"]}}';
    assert.deepEqual(scan(text, 64, text.indexOf('\uFFFD')).problem, { path: '.data.k[1]', reason: 'invalid_utf8' });
    const key = '{"data":{"\uFFFD":1}}';
    assert.deepEqual(scan(key, 64, key.indexOf('\uFFFD')).problem, { path: '.data["\uFFFD"]', reason: 'invalid_utf8' });
  });

  it('agrees with JSON.parse on generated JSON: member values and depth', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 6 })), fc.nat(8), (object, depthLimit) => {
        const text = JSON.stringify(object, null, depthLimit % 3 === 0 ? undefined : 1);
        const { problem, members } = scan(text, depthLimit + 1);
        const depth = depthOf(object);
        assert.equal(problem?.reason === 'too_deep', depth > depthLimit + 1);
        if (problem) return;
        const parsed = JSON.parse(text) as Record<string, unknown>;
        assert.deepEqual([...members.keys()], Object.keys(parsed));
        for (const [name, value] of members) assert.deepEqual(JSON.parse(value), parsed[name]);
      }),
      { numRuns: 300 },
    );
  });

  it('ends on any text, JSON or not, without throwing', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', ',', ':', '1', 'e', ' ', 'x') }),
        (t) => {
          const result = scan(t, 8);
          assert.ok(result.problem === null || result.problem.reason === 'too_deep');
        },
      ),
      { numRuns: 500 },
    );
  });
});
