// A small request generator driven by the OpenAPI document alone (fast-check): for each operation, requests the
// document says are valid, and requests that break exactly one rule the document declares. It covers the JSON Schema
// the document uses (types, enum, anyOf, $ref, formats uuid/date-time, lengths, pattern, minimum/maximum, items,
// minItems, uniqueItems, required, additionalProperties, minProperties). Strings that declare `examples` are rules
// beyond a schema (a callback host that resolves publicly, a point on P-256): valid values are drawn from the examples.
import fc from 'fast-check';

export type JsonSchema = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
};
export type Arb = fc.Arbitrary<unknown>;
/**
 * Valid values only the running system knows (a registered integrator id), by `body.<name>`, `path.<name>` or
 * `query.<name>`; null leaves an optional parameter out (an opaque cursor is valid only as the API issued it).
 */
export type Fixtures = Record<string, Arb | null>;

const num = (s: JsonSchema, key: string): number | undefined =>
  typeof s[key] === 'number' ? (s[key] as number) : undefined;

export function resolver(doc: { components?: { schemas?: Record<string, JsonSchema> } }) {
  return (schema: JsonSchema): JsonSchema => {
    let s = schema;
    while (s.$ref) {
      const target = doc.components?.schemas?.[s.$ref.replace('#/components/schemas/', '')];
      if (!target) throw new Error(`unresolvable ${s.$ref}`);
      const { $ref: _ref, ...rest } = s;
      s = { ...target, ...rest };
    }
    return s;
  };
}

const typesOf = (s: JsonSchema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

export function validArb(schema: JsonSchema, resolve: (s: JsonSchema) => JsonSchema): Arb {
  const s = resolve(schema);
  if (Array.isArray(s.examples) && s.examples.length > 0) return fc.constantFrom(...s.examples);
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.anyOf) return fc.oneof(...s.anyOf.map((b) => validArb(b, resolve)));
  const types = typesOf(s);
  if (types.length > 1) return fc.oneof(...types.map((type) => validArb({ ...s, type }, resolve)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      // Where the document sets no bound, the largest integer a client can send is as valid as a small one.
      const [min, max] = [num(s, 'minimum'), num(s, 'maximum')];
      const small = fc.integer({ min: min ?? -1000, max: max ?? 1000 });
      const extremes = [
        ...(min === undefined ? [Number.MIN_SAFE_INTEGER] : []),
        ...(max === undefined ? [Number.MAX_SAFE_INTEGER] : []),
      ];
      return extremes.length ? fc.oneof(small, fc.constantFrom(...extremes)) : small;
    }
    case 'number':
      return fc.double({
        noNaN: true,
        noDefaultInfinity: true,
        min: num(s, 'minimum') ?? -1e6,
        max: num(s, 'maximum') ?? 1e6,
      });
    case 'string':
      return validString(s);
    case 'array': {
      const items = validArb(s.items ?? {}, resolve);
      const minLength = num(s, 'minItems') ?? 0;
      const maxLength = Math.max(minLength, Math.min(num(s, 'maxItems') ?? 4, 4));
      return s.uniqueItems
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(items, { minLength, maxLength });
    }
    case 'object':
      return validObject(s, resolve);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function validString(s: JsonSchema): Arb {
  if (s.format === 'uuid') return fc.uuid();
  if (s.format === 'date-time') {
    const range = { min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true };
    return fc.date(range).map((d) => d.toISOString());
  }
  const minLength = num(s, 'minLength') ?? 0;
  const maxLength = Math.min(num(s, 'maxLength') ?? 40, 40);
  if (typeof s.pattern === 'string') {
    const re = new RegExp(s.pattern);
    return fc.stringMatching(re).filter((v) => v.length >= minLength && v.length <= (num(s, 'maxLength') ?? 1e9));
  }
  return fc.string({ minLength, maxLength, unit: 'grapheme-ascii' });
}

function validObject(s: JsonSchema, resolve: (s: JsonSchema) => JsonSchema, fixtures: Fixtures = {}, at = ''): Arb {
  const props = s.properties ?? {};
  const required = new Set(s.required ?? []);
  const record: Record<string, Arb> = {};
  for (const [name, prop] of Object.entries(props)) record[name] = fixtures[`${at}${name}`] ?? validArb(prop, resolve);
  const optional = Object.keys(props).filter((k) => !required.has(k));
  const minProperties = num(s, 'minProperties') ?? 0;
  return fc
    .record(record, { requiredKeys: [...required] })
    .filter((v) => Object.keys(v).length >= minProperties || optional.length === 0);
}

/** The valid body of an operation, with fixtures for the properties the running system must know. */
export const validBody = (schema: JsonSchema, resolve: (s: JsonSchema) => JsonSchema, fixtures: Fixtures): Arb =>
  validObject(resolve(schema), resolve, fixtures, 'body.');

/** Values that break one declared rule of `schema` (none for a schema that allows anything). */
export function invalidValues(schema: JsonSchema, resolve: (s: JsonSchema) => JsonSchema, valid: unknown): unknown[] {
  const s = resolve(schema);
  const types = typesOf(s);
  if (s.anyOf) {
    const nullable = s.anyOf.some((b) => typesOf(resolve(b)).includes('null'));
    return s.anyOf.flatMap((b) => invalidValues(b, resolve, valid)).filter((v) => v !== null || !nullable);
  }
  const out: unknown[] = [];
  if (s.enum) out.push('not-a-member');
  if (types.includes('string')) {
    if (!types.includes('integer')) out.push(12);
    if (s.format === 'uuid') out.push('not-a-uuid', '123e4567-e89b-12d3-a456-42661417400');
    if (s.format === 'date-time') out.push('2026-13-01T00:00:00Z', '2026-01-01', 'yesterday');
    const max = num(s, 'maxLength');
    if (max !== undefined) out.push(typeof valid === 'string' ? valid.padEnd(max + 1, 'x') : 'x'.repeat(max + 1));
    if ((num(s, 'minLength') ?? 0) > 0) out.push('');
    if (typeof s.pattern === 'string' && !s.format)
      out.push(...['', ' ', 'x y#'].filter((v) => !new RegExp(s.pattern as string).test(v)));
  }
  if (types.includes('integer')) {
    out.push(1.5, 'abc');
    if (num(s, 'minimum') !== undefined) out.push(num(s, 'minimum')! - 1);
    if (num(s, 'maximum') !== undefined) out.push(num(s, 'maximum')! + 1);
  }
  if (types.includes('number') && !types.includes('integer')) {
    out.push('abc');
    if (num(s, 'minimum') !== undefined) out.push(num(s, 'minimum')! - 1);
    if (num(s, 'maximum') !== undefined) out.push(num(s, 'maximum')! + 1);
  }
  if (types.includes('boolean')) out.push('yes');
  if (types.includes('array')) {
    out.push('not-an-array');
    const max = num(s, 'maxItems');
    const first = Array.isArray(valid) && valid.length > 0 ? valid[0] : undefined;
    if ((num(s, 'minItems') ?? 0) > 0) out.push([]);
    if (first !== undefined && s.uniqueItems) out.push([first, first]);
    if (first !== undefined && max !== undefined) out.push(Array.from({ length: max + 1 }, () => first));
    if (s.items) out.push(...invalidValues(s.items, resolve, first).map((bad) => [bad]));
  }
  if (types.includes('object')) out.push(...invalidObjects(s, resolve, valid));
  return types.includes('null') ? out.filter((v) => v !== null) : out;
}

function invalidObjects(s: JsonSchema, resolve: (s: JsonSchema) => JsonSchema, valid: unknown): unknown[] {
  const base =
    valid !== null && typeof valid === 'object' && !Array.isArray(valid) ? (valid as Record<string, unknown>) : {};
  const out: unknown[] = ['not-an-object'];
  for (const name of s.required ?? []) {
    const { [name]: _dropped, ...rest } = base;
    out.push(rest);
  }
  if (s.additionalProperties === false) out.push({ ...base, unexpectedMember: 1 });
  if ((num(s, 'minProperties') ?? 0) > 0) out.push({});
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    for (const bad of invalidValues(prop, resolve, base[name])) out.push({ ...base, [name]: bad });
  }
  return out;
}
