// A Herald process (src/process/worker.ts or src/process/server.ts) as a child of the test, so a test can kill it -9 or
// SIGTERM it.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../src/config.js';

export interface HeraldChild {
  readonly child: ChildProcess;
  /** Everything the child wrote, stdout and stderr interleaved. */
  output(): string;
  /** Resolves when it has exited, with its code (null when killed by a signal) and Date.now() at exit. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** The environment that makes a child process load `config` (the parts tests set) plus `extra`. */
export function envOf(config: Config, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const dns = Object.entries(config.HERALD_DNS_STATIC)
    .map(([name, addresses]) => `${name}=${addresses.join('|')}`)
    .join(',');
  return {
    ...process.env,
    MONGODB_URL: config.MONGODB_URL,
    MONGODB_DB: config.MONGODB_DB,
    TEMPORAL_ADDRESS: config.TEMPORAL_ADDRESS,
    TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
    HERALD_MASTER_KEY: config.HERALD_MASTER_KEY ?? '',
    HERALD_CURSOR_SECRET: config.HERALD_CURSOR_SECRET ?? '',
    HERALD_ADMIN_TOKEN: config.HERALD_ADMIN_TOKEN ?? '',
    HERALD_DNS_STATIC: dns,
    HERALD_ALLOW_CIDRS: config.HERALD_ALLOW_CIDRS.join(','),
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** Runs `src/process/<entry>.ts` with tsx, as `npm run start:*` runs the built file; `nodeArgs`: node flags before it. */
export function spawnHerald(entry: 'worker' | 'server', env: NodeJS.ProcessEnv, nodeArgs: string[] = []): HeraldChild {
  const script = fileURLToPath(new URL(`../../src/process/${entry}.ts`, import.meta.url));
  const args = [...nodeArgs, '--import', 'tsx', script];
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return { child, output: () => output, exited };
}

/** Kills a child still running at the end of a test (SIGKILL), and waits for it. */
export async function reap(...children: (HeraldChild | undefined)[]): Promise<void> {
  for (const c of children) {
    if (c && c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
    if (c) await c.exited;
  }
}
