// Per-process CPU seconds and RSS from /proc (Linux), for the long benchmarks' resource figures.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** The pid listening on a loopback TCP port (the bed's servers are started by bench/run.ts, not by the bench). */
export function pidListeningOn(port: number): number | undefined {
  const out = execFileSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' });
  const m = /pid=(\d+)/.exec(out);
  return m ? Number(m[1]) : undefined;
}

export interface ProcSample {
  cpuSeconds: number;
  rssMb: number;
  peakRssMb: number;
}

export function sample(pid: number): ProcSample | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND; // utime + stime
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return { cpuSeconds, rssMb: Math.round(kb('VmRSS') / 1024), peakRssMb: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return undefined; // exited
  }
}

/** Samples named processes; `report()` gives CPU seconds used since creation and the peak RSS seen. */
export function processWatch(pids: Record<string, number | undefined>): {
  tick(): void;
  report(): Record<string, { cpuSeconds: number; peakRssMb: number; rssMb: number }>;
} {
  const start: Record<string, number> = {};
  const last: Record<string, ProcSample> = {};
  for (const [name, pid] of Object.entries(pids)) {
    const s = pid === undefined ? undefined : sample(pid);
    if (s) start[name] = s.cpuSeconds;
  }
  const tick = (): void => {
    for (const [name, pid] of Object.entries(pids)) {
      const s = pid === undefined ? undefined : sample(pid);
      if (s) last[name] = s;
    }
  };
  return {
    tick,
    report() {
      tick();
      return Object.fromEntries(
        Object.entries(last).map(([name, s]) => [
          name,
          { cpuSeconds: Math.round(s.cpuSeconds - (start[name] ?? 0)), peakRssMb: s.peakRssMb, rssMb: s.rssMb },
        ]),
      );
    },
  };
}
