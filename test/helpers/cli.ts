import { PassThrough, Readable } from 'node:stream';
import { runCli } from '../../src/cli/main.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function sink(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** A `herald …argv` running in this process with in-memory streams: its output so far, and its end. */
export function startCli(
  env: Record<string, string>,
  argv: string[],
  signal?: AbortSignal,
): { output: () => string; stderr: () => string; done: Promise<CliRun> } {
  const out = sink();
  const err = sink();
  const done = runCli(argv, { stdin: Readable.from(['']), stdout: out.stream, stderr: err.stream, env, signal }).then(
    (code) => ({
      code,
      stdout: out.text(),
      stderr: err.text(),
    }),
  );
  return { output: out.text, stderr: err.text, done };
}

export const cli = (env: Record<string, string>, argv: string[]): Promise<CliRun> => startCli(env, argv).done;

/** Waits until `check` holds for the output, bounded. */
export async function waitForOutput(
  read: () => string,
  check: (text: string) => boolean,
  timeoutMs = 20_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = read();
    if (check(text)) return text;
    if (Date.now() > deadline) throw new Error(`timed out waiting; output so far:\n${text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
