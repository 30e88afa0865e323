import type { CliIo } from './types.js';

/** A table column: its heading and how to show a row's value. */
export type Column<T> = readonly [heading: string, value: (row: T) => string | number | boolean | null | undefined];

/** `2026-11-23T12:00:01.123Z` → `2026-11-23 12:00:01` (UTC, as the API gives it); null → `-`. */
export const shortTime = (iso: string | null | undefined): string =>
  iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '') : '-';

/** Rows as left-aligned, space-separated columns under their headings (plain text, no colours). */
export function formatTable<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cells = rows.map((row) => columns.map(([, value]) => String(value(row) ?? '-')));
  const widths = columns.map(([heading], i) => Math.max(heading.length, ...cells.map((c) => c[i]!.length)));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns.map(([heading]) => heading.toUpperCase())), ...cells.map(line)].join('\n') + '\n';
}

/** Name/value lines for one record. */
export function formatFields(fields: ReadonlyArray<readonly [string, unknown]>): string {
  const width = Math.max(...fields.map(([name]) => name.length)) + 2;
  return fields.map(([name, value]) => `${`${name}:`.padEnd(width)}${value ?? '-'}`).join('\n') + '\n';
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  /** The API's page as it came, printed by `--json`. */
  raw: unknown;
}

/**
 * Prints a listing: one page (`--cursor` to continue, `--limit` its size) or every page (`--all`); a table, or with
 * `--json` the API's page as it came (`--all`: one JSON array of every item).
 */
export async function printListing<T>(
  io: CliIo,
  options: { json: boolean; all: boolean; command: string },
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  columns: readonly Column<T>[],
  first?: string,
): Promise<void> {
  let page = await fetchPage(first);
  if (!options.all) {
    if (options.json) io.stdout.write(`${JSON.stringify(page.raw, null, 2)}\n`);
    else {
      io.stdout.write(page.items.length > 0 ? formatTable(page.items, columns) : '(none)\n');
      if (page.nextCursor) io.stdout.write(`more: ${options.command} --cursor ${page.nextCursor}\n`);
    }
    return;
  }
  const items = [...page.items];
  while (page.nextCursor) {
    page = await fetchPage(page.nextCursor);
    items.push(...page.items);
  }
  if (options.json) io.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
  else io.stdout.write(items.length > 0 ? formatTable(items, columns) : '(none)\n');
}
