import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createServer, connect } from 'node:net';

export interface Managed {
  readonly name: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1, chosen by the kernel. */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether a server could listen on `port` of 127.0.0.1 now: nothing listens there (on it or on every address). */
export async function portFree(port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

export async function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = connect({ port, host }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

export async function waitForPort(port: number, what: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode} before listening`);
    if (await portOpen(port)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not listen on ${port} within ${timeoutMs} ms`);
}

/** Spawns a long-running process in its own process group, output to a log file (or inherited). */
export function spawnManaged(
  name: string,
  cmd: string,
  args: string[],
  opts: {
    log?: string;
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    /** Run as this user (PostgreSQL refuses root). */
    user?: { uid: number; gid: number };
    /** What asks it to stop (default SIGTERM; PostgreSQL's fast shutdown is SIGINT). */
    stopSignal?: NodeJS.Signals;
  } = {},
): Managed {
  const child = spawn(cmd, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    ...(opts.user ?? {}),
    stdio: opts.log ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'],
    detached: true,
  });
  if (opts.log) {
    const out = createWriteStream(opts.log, { flags: 'a' });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      try {
        process.kill(-child.pid, opts.stopSignal ?? 'SIGTERM');
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }, 8_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Ends a test script with `run`'s exit status; a crash counts as one failure in the closing line CI reads. */
export function exitWithTestStatus(run: Promise<number>): void {
  run.then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err);
      console.log('0 passed, 1 failed');
      process.exit(1);
    },
  );
}
