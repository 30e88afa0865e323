// docs/api.md, rendered from the served OpenAPI document (the routes' zod schemas are its single source). The
// integration test test/integration/openapi-document.test.ts fails when the page differs from this rendering of the
// live document, and writes it anew with HERALD_WRITE_API_DOC=1.

type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  additionalProperties?: boolean | Schema;
};
type Parameter = { name: string; in: string; required?: boolean; description?: string; schema?: Schema };
type Operation = {
  tags?: string[];
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
  security?: unknown[];
};
export type ApiDocument = {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** A table cell: one line, pipes escaped. */
const cell = (text: string): string => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
const refName = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1);
const anchor = (name: string): string => `#${name.toLowerCase().replace(/[^a-z0-9-]/g, '')}`;

/** A schema's type in a few words: `string (uuid)`, `Delivery[]`, `integer 1–250`, `"a" \| "b"`, `… or null`. */
export function typeOf(schema: Schema | undefined): string {
  if (!schema) return 'any';
  if (schema.$ref) return `[${refName(schema.$ref)}](${anchor(refName(schema.$ref))})`;
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map(typeOf).join(' or ');
  if (schema.allOf?.length === 1) return typeOf(schema.allOf[0]);
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(', ');
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const one = (type: string): string => {
    if (type === 'array') return `${typeOf(schema.items)}[]`;
    if (type === 'string' && schema.format) return `string (${schema.format})`;
    if ((type === 'integer' || type === 'number') && schema.minimum !== undefined && schema.maximum !== undefined)
      return `${type} ${schema.minimum}–${schema.maximum}`;
    return type;
  };
  return types.length > 0 ? types.map(one).join(' or ') : 'any JSON value';
}

function fieldsTable(schema: Schema): string[] {
  const required = new Set(schema.required ?? []);
  const rows = Object.entries(schema.properties ?? {}).map(([name, field]) => {
    const notes = [
      field.description ?? '',
      field.default !== undefined ? `default ${JSON.stringify(field.default)}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    return `| \`${name}\` | ${cell(typeOf(field))} | ${required.has(name) ? 'yes' : 'no'} | ${cell(notes)} |`;
  });
  return rows.length === 0 ? [] : ['| field | type | required | notes |', '| --- | --- | --- | --- |', ...rows];
}

function operation(method: string, path: string, op: Operation): string[] {
  const lines = [`### ${method.toUpperCase()} \`${path}\``, ''];
  if (op.summary) lines.push(`**${op.summary}.**${op.security?.length === 0 ? ' No authentication.' : ''}`, '');
  if (op.description) lines.push(op.description, '');
  const params = op.parameters ?? [];
  if (params.length > 0) {
    lines.push('| parameter | in | type | required | notes |', '| --- | --- | --- | --- | --- |');
    for (const p of params)
      lines.push(
        `| \`${p.name}\` | ${p.in} | ${cell(typeOf(p.schema))} | ${p.required ? 'yes' : 'no'} | ${cell(p.description ?? '')} |`,
      );
    lines.push('');
  }
  const body = op.requestBody?.content?.['application/json']?.schema;
  if (body) lines.push(`Request body: ${typeOf(body)}`, '', ...fieldsTable(body), ...(body.properties ? [''] : []));
  const answers = Object.entries(op.responses ?? {}).map(([status, r]) => {
    const schema = r.content?.['application/json']?.schema;
    return `${status} ${schema ? typeOf(schema) : '(no body)'}`;
  });
  if (answers.length > 0) lines.push(`Answers: ${answers.join('; ')}.`, '');
  return lines;
}

/** The page, in the document's order of paths, grouped by each operation's first tag. */
export function renderApiReference(doc: ApiDocument): string {
  const lines = [
    '# API reference',
    '',
    `${doc.info.title}, version ${doc.info.version}. Rendered from the OpenAPI document the API serves at`,
    '`/openapi.json` (and as pages at `/docs`); do not edit by hand: `HERALD_WRITE_API_DOC=1 npm test --',
    'test/integration/openapi-document.test.ts` writes it anew. The decisions behind these shapes are in the README and',
    'the topic documents beside this page.',
    '',
    doc.info.description ?? '',
    '',
  ];
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths))
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), ...operation(method, path, op)]);
    }
  for (const [tag, ops] of byTag) lines.push(`## ${tag}`, '', ...ops);
  lines.push('## Schemas', '');
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    lines.push(`### ${name}`, '');
    if (schema.description) lines.push(schema.description, '');
    const table = fieldsTable(schema);
    lines.push(...(table.length > 0 ? table : [typeOf(schema)]), '');
  }
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}
