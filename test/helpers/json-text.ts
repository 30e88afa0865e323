// fast-check arbitraries of JSON *text* (not values): every spelling JSON allows — numbers past 2^53, -0, exponents,
// trailing zeros; escapes in every case, lone and paired surrogate escapes, raw non-ASCII; empty, repeated and
// integer-like keys (which JSON.parse would reorder); whitespace anywhere. A parse-and-re-encode changes most of them.
import fc from 'fast-check';

const ws = fc.constantFrom('', '', '', ' ', '\n  ', '\t', '\r\n');

/** A raw character that may stand unescaped in a JSON string (no control character, quote or backslash). */
const rawChar = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 1 })
  .filter((c) => ![...c].some((ch) => ch < ' ' || ch === '"' || ch === '\\'));

const hex4 = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16).padStart(4, '0'));

const stringPiece = fc.oneof(
  rawChar,
  fc.constantFrom('\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t', '\\u0000', '\\u001F', 'é', '€', '😀'),
  fc.constantFrom('\\ud800', '\\uDFFF', '\\ud83d\\ude00', '\\uD83D', '\\udc00\\ud800', '\u2028', '\ufeff'),
  fc.tuple(hex4, fc.boolean()).map(([h, upper]) => `\\u${upper ? h.toUpperCase() : h}`),
);

export const jsonStringText = fc.array(stringPiece, { maxLength: 8 }).map((p) => `"${p.join('')}"`);

const keyText = fc.oneof(
  jsonStringText,
  fc.constantFrom('""', '"0"', '"1"', '"10"', '"007"', '"-1"', '"4294967295"', '"$where"', '"a.b"', '"data"'),
);

export const jsonNumberText = fc.oneof(
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.constantFrom(
    ...['-0', '0', '0.0', '-0.0e0', '1E+2', '1e-7', '-1.5e300', '1e-400', '0.1000', '1.7976931348623157e308'],
    ...['123456789012345678901234567890', '9007199254740993', '4.9e-324', '2.5e-324', '100000000000000000000.5'],
  ),
  fc
    .tuple(fc.integer({ min: -99_999, max: 99_999 }), fc.nat(), fc.integer({ min: -400, max: 300 }))
    .chain(([i, f, e]) => fc.constantFrom('e', 'E', 'e+').map((x) => `${i}.${f}${e < 0 ? 'e' : x}${e}`)),
);

const scalarText = fc.oneof(jsonNumberText, jsonStringText, fc.constantFrom('true', 'false', 'null'));

const join = (open: string, parts: string[], close: string, empty: string) =>
  parts.length ? `${open}${parts.join(',')}${close}` : `${open}${empty}${close}`;

/** Any JSON value as text, nested a few levels. */
export const jsonValueText: fc.Arbitrary<string> = fc.letrec<{ value: string; array: string; object: string }>(
  (tie) => ({
    value: fc.oneof({ maxDepth: 5, depthIdentifier: 'json' }, scalarText, tie('array'), tie('object')),
    array: fc
      .tuple(fc.array(fc.tuple(ws, tie('value'), ws), { maxLength: 5, depthIdentifier: 'json' }), ws)
      .map(([items, w]) =>
        join(
          '[',
          items.map((p) => p.join('')),
          ']',
          w,
        ),
      ),
    object: fc
      .tuple(fc.array(fc.tuple(ws, keyText, ws, ws, tie('value'), ws), { maxLength: 5, depthIdentifier: 'json' }), ws)
      .map(([members, w]) =>
        join(
          '{',
          members.map(([a, k, b, c, v, d]) => `${a}${k}${b}:${c}${v}${d}`),
          '}',
          w,
        ),
      ),
  }),
).value;

/** A scalar inside `depth` arrays and objects (built without recursion, so any depth works). */
export function nestedText(depth: number, pattern: readonly boolean[], inner: string): string {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    const isArray = pattern[i % pattern.length] ?? true;
    open += isArray ? '[' : '{"k":';
    close = (isArray ? ']' : '}') + close;
  }
  return `${open}${inner}${close}`;
}

/** JSON text nested between `min` and `max` levels deep. */
export const nestedJsonText = (min: number, max: number) =>
  fc
    .tuple(fc.integer({ min, max }), fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }), scalarText)
    .map(([depth, pattern, inner]) => ({ depth, text: nestedText(depth, pattern, inner) }));

/**
 * A POST /internal/v1/events body as text: `fields` serialised, and `data` spliced in as given, first or last,
 * with whitespace around it.
 */
export function eventBodyText(fields: Record<string, unknown>, data: string, layout: EventLayout): string {
  const head = JSON.stringify(fields);
  const member = `"data":${layout.before}${data}${layout.after}`;
  return layout.dataFirst ? `{${member},${head.slice(1)}` : `${head.slice(0, -1)},${member}}`;
}

export interface EventLayout {
  dataFirst: boolean;
  before: string;
  after: string;
}

export const eventLayout: fc.Arbitrary<EventLayout> = fc.record({ dataFirst: fc.boolean(), before: ws, after: ws });
