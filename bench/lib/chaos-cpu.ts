// The chaos run's CPU figures: CPU seconds of named processes from the run's start on, across the restarts the run
// causes (a restarted process is a new pid whose CPU counts from its own start, its start-up included).
import { cpuSecondsOfTree } from './delivery-phases.js';

export interface CpuMeter {
  /** Reads every process once more; call it every few seconds (a process's last seconds before a kill are lost). */
  tick(): void;
  /** CPU seconds by name since the meter was made; a name whose process was never found is left out. */
  seconds(): Record<string, number>;
}

interface Track {
  pid: number | undefined;
  last: number;
  total: number;
}

/**
 * `pids`: by name, the process's pid now (undefined while it is down). `read`: CPU seconds so far of a pid (its
 * children included). What the processes used before the meter was made is not counted.
 */
export function cpuMeter(
  pids: Readonly<Record<string, () => number | undefined>>,
  read: (pid: number) => number = cpuSecondsOfTree,
): CpuMeter {
  const tracks = new Map<string, Track>();
  for (const [name, pidNow] of Object.entries(pids)) {
    const pid = pidNow();
    tracks.set(name, { pid, last: pid === undefined ? 0 : read(pid), total: 0 });
  }
  const tick = (): void => {
    for (const [name, pidNow] of Object.entries(pids)) {
      const pid = pidNow();
      const track = tracks.get(name)!;
      if (pid === undefined) continue;
      if (pid !== track.pid) Object.assign(track, { pid, last: 0 }); // started during the run: all of it counts
      const now = read(pid);
      track.total += Math.max(0, now - track.last); // 0 when it has just ended: nothing to read
      track.last = Math.max(track.last, now);
    }
  };
  return {
    tick,
    seconds() {
      tick();
      return Object.fromEntries(
        [...tracks].filter(([, t]) => t.pid !== undefined).map(([name, t]) => [name, t.total] as const),
      );
    },
  };
}
