import type { CliIo } from './types.js';

export const DEFAULT_HERALD_URL = 'http://127.0.0.1:3000';

/** A mistake in the command line found by the command: printed with the command's help, exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A failure that is not the API's answer (missing token, unreadable file): printed as is, exit 1. */
export class CliError extends Error {
  override readonly name = 'CliError';
}

export const heraldUrl = (env: CliIo['env']): string => env.HERALD_URL?.trim() || DEFAULT_HERALD_URL;

export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Reads a whole stream (stdin for `--pem -`), bounded: a PEM key is well under 64 KiB. */
export async function readAll(stream: NodeJS.ReadableStream, limit = 64 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > limit) throw new CliError(`input is larger than ${limit} bytes`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}
