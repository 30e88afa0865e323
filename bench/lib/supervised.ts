// A process the chaos run kills -9 and that comes back by itself: whenever it exits (killed, or failed to start
// because a dependency was down) it is started again after a short pause, on the same ports and data.
import type { Managed } from '../../scripts/lib/processes.js';

export interface Supervised {
  readonly name: string;
  /** Resolves once the first start has succeeded. */
  start(): Promise<void>;
  /** kill -9 of its process group; resolves once it is up again (its launch resolved), with the ms that took. */
  kill9(): Promise<number>;
  /** Stops it for good (SIGTERM, then SIGKILL). */
  stop(): Promise<void>;
  /** SIGKILL of its process group, synchronously: for the run's own exit, so that nothing is left behind. */
  killNow(): void;
  readonly restarts: number;
  /** Its process's pid while it runs. */
  readonly pid: number | undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `launch` starts the process and resolves once it serves (e.g. listens); it is retried every `retryMs` until then. */
export function supervised(name: string, launch: () => Promise<Managed>, retryMs = 1_000): Supervised {
  let current: Managed | undefined;
  let stopped = false;
  let restarts = 0;
  let upWaiters: (() => void)[] = [];

  async function up(): Promise<void> {
    for (;;) {
      if (stopped) return;
      try {
        const managed = await launch();
        current = managed;
        managed.child.once('exit', () => {
          if (stopped) return;
          restarts += 1;
          current = undefined;
          void sleep(200).then(up);
        });
        const waiters = upWaiters;
        upWaiters = [];
        for (const w of waiters) w();
        return;
      } catch (err) {
        console.error(`chaos: ${name} did not start (${(err as Error).message}); again in ${retryMs} ms`);
        await sleep(retryMs);
      }
    }
  }

  return {
    name,
    get restarts() {
      return restarts;
    },
    get pid() {
      return current?.child.pid;
    },
    start: up,
    async kill9() {
      const pid = current?.child.pid;
      if (pid === undefined) return 0;
      const killedAt = Date.now();
      const back = new Promise<void>((resolve) => upWaiters.push(resolve));
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
      await back;
      return Date.now() - killedAt;
    },
    async stop() {
      stopped = true;
      await current?.stop();
    },
    killNow() {
      stopped = true;
      const pid = current?.child.pid;
      if (pid === undefined || current?.child.exitCode !== null) return;
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    },
  };
}
