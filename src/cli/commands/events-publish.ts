import { isUtf8 } from 'node:buffer';
import { adminClient } from '../credentials.js';
import { readFile } from 'node:fs/promises';
import type { HeraldAdminClient } from '../../client/admin-client.js';
import { defineCommand } from '../program.js';
import { heraldUrl, UsageError } from '../support.js';
import { HeraldApiError } from '../../client/http.js';
import { scanJson } from '../../util/json-scan.js';

/**
 * One input item: the parsed event (to check and label it) and its exact JSON text (what is sent, so that `data`
 * keeps every digit: README "Payload fidelity"), or why its line could not be read; `label` names it in the output.
 */
type Item = { label: string; event: unknown; text: string } | { label: string; error: string };

/** Events in flight at once; output stays in input order. */
const CONCURRENCY = 8;

async function readInput(path: string, stdin: NodeJS.ReadableStream): Promise<Buffer> {
  if (path !== '-') return await readFile(path);
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

const labelOf = (event: unknown, fallback: string): string =>
  event !== null && typeof event === 'object' && typeof (event as { id?: unknown }).id === 'string'
    ? (event as { id: string }).id
    : fallback;

/** A whole-text JSON object or array; otherwise NDJSON, one event per non-blank line. */
export function parseEvents(text: string): Item[] {
  try {
    const whole: unknown = JSON.parse(text);
    if (!Array.isArray(whole)) return [{ label: labelOf(whole, 'item 1'), event: whole, text: text.trim() }];
    const texts = scanJson(text, { maxDepth: Infinity }).items;
    return whole.map((event, i) => ({ label: labelOf(event, `item ${i + 1}`), event, text: texts[i]! }));
  } catch {
    // Not one JSON document: NDJSON.
  }
  return text.split('\n').flatMap((line, i): Item[] => {
    if (line.trim() === '') return [];
    try {
      const event: unknown = JSON.parse(line);
      return [{ label: labelOf(event, `line ${i + 1}`), event, text: line.trim() }];
    } catch (err) {
      return [{ label: `line ${i + 1}`, error: `not JSON: ${(err as Error).message}` }];
    }
  });
}

/** The API's status and error, or why the API could not be reached. */
function describe(err: unknown, url: string): string {
  if (err instanceof HeraldApiError) return err.message;
  const cause = (err as { cause?: { code?: string; errors?: Array<{ code?: string }>; message?: string } }).cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message;
  if (err instanceof TypeError && cause) return `cannot reach ${url}: ${code ?? 'network error'}`;
  return err instanceof Error ? err.message : String(err);
}

async function publishOne(client: HeraldAdminClient, url: string, item: Item): Promise<{ line: string; ok: boolean }> {
  if ('error' in item) return { line: `error ${item.label}: ${item.error}`, ok: false };
  if (item.event === null || typeof item.event !== 'object' || Array.isArray(item.event)) {
    return { line: `error ${item.label}: an event must be a JSON object`, ok: false };
  }
  try {
    const { created, event } = await client.publishEvent(item.text);
    return { line: `${created ? 'created' : 'exists'} ${event.id}`, ok: true };
  } catch (err) {
    return { line: `error ${item.label}: ${describe(err, url)}`, ok: false };
  }
}

/** `herald events publish`: sends each event to POST /internal/v1/events; exit 1 if any failed, 2 on misuse. */
export const eventsPublishCommand = defineCommand({
  name: 'events publish',
  summary: 'Publish lifecycle events from a JSON file or stdin (object, array or NDJSON)',
  args: ['<file>'],
  notes: 'file: one JSON object, a JSON array, or NDJSON (one event a line); - reads stdin. Needs the admin token.',
  async action({ positionals }, io) {
    const [file] = positionals as [string];
    if (!file) throw new UsageError('give a file name, or - for stdin');
    let client: HeraldAdminClient;
    try {
      client = adminClient(io.env);
    } catch (err) {
      io.stderr.write(`herald: ${(err as Error).message}\n`);
      return 2;
    }
    let bytes: Buffer;
    try {
      bytes = await readInput(file, io.stdin);
    } catch (err) {
      io.stderr.write(`herald: cannot read ${file}: ${(err as Error).message}\n`);
      return 2;
    }
    // Decoding would put U+FFFD in place of invalid bytes and send an altered event: refuse instead.
    if (!isUtf8(bytes)) {
      io.stderr.write(`herald: ${file} is not valid UTF-8\n`);
      return 2;
    }
    const url = heraldUrl(io.env);
    const items = parseEvents(bytes.toString('utf8'));
    let failed = 0;
    // A sliding window: up to CONCURRENCY requests in flight, results printed in input order.
    const pending: Array<Promise<{ line: string; ok: boolean }>> = [];
    let next = 0;
    const fill = () => {
      while (next < items.length && pending.length < CONCURRENCY) pending.push(publishOne(client, url, items[next++]!));
    };
    fill();
    while (pending.length > 0) {
      const result = await pending.shift()!;
      if (!result.ok) failed++;
      io.stdout.write(`${result.line}\n`);
      fill();
    }
    if (items.length === 0) io.stderr.write('herald: no events in the input\n');
    return failed > 0 || items.length === 0 ? 1 : 0;
  },
});
