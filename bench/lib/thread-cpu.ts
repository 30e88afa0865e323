// This process's CPU by kind of thread (Linux /proc/self/task), to show which of its threads a delivery's extra CPU
// lands on. Kinds by the name the kernel holds (comm) and by when the thread started: Node's threads are all called
// `node`; those present when this module loads are the main thread and V8's helpers (garbage collection, compiling),
// those started later are the Temporal workers' workflow threads (and libuv's pool, if first used later).
import { readdirSync, readFileSync } from 'node:fs';

export type ThreadCpu = Record<string, number>;

const early = new Set(readdirSync('/proc/self/task'));

function kindOf(tid: string, comm: string): string {
  if (Number(tid) === process.pid) return 'main';
  if (comm === 'node') return early.has(tid) ? 'V8 helpers' : 'workflow threads';
  if (comm.startsWith('tokio-runtime')) return 'SDK core (tokio)';
  if (comm.startsWith('workflow-proces')) return 'SDK core (workflow processing)';
  return comm;
}

/** CPU seconds so far per kind of thread (a thread that has ended since is missing: compare like with like). */
export function threadCpuSeconds(): ThreadCpu {
  const out: ThreadCpu = {};
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const kind = kindOf(tid, comm);
      out[kind] = (out[kind] ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in ticks
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** Milliseconds per item by kind of thread between two readings. */
export function threadMsPerItem(before: ThreadCpu, after: ThreadCpu, items: number): ThreadCpu {
  return Object.fromEntries(
    Object.entries(after).map(([kind, secs]) => [kind, ((secs - (before[kind] ?? 0)) * 1000) / items]),
  );
}
