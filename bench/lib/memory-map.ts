// Where a process's resident memory is, from /proc/PID/smaps (Linux): file-backed pages (the node binary, the SDK's
// native library), glibc's main heap (brk), glibc's per-thread malloc arenas (64 MiB reservations at 64 MiB-aligned
// addresses), thread stacks, and the other anonymous mappings (V8's heaps and code space, large mallocs).
import { readFileSync } from 'node:fs';

export interface MemoryMap {
  rssMb: number;
  fileMb: number;
  brkHeapMb: number;
  mallocArenas: number;
  mallocArenasMb: number;
  otherAnonMb: number;
  threads: number;
}

const ARENA = 64 * 2 ** 20; // glibc HEAP_MAX_SIZE on 64-bit

interface Vma {
  start: number;
  end: number;
  perms: string;
  name: string;
  rssKb: number;
}

function parseSmaps(text: string): Vma[] {
  const vmas: Vma[] = [];
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) {
      const [, start, end, perms, name] = head;
      vmas.push({ start: parseInt(start!, 16), end: parseInt(end!, 16), perms: perms!, name: name ?? '', rssKb: 0 });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    const last = vmas[vmas.length - 1];
    if (rss && last) last.rssKb = Number(rss[1]);
  }
  return vmas;
}

/** The resident memory of `pid` by kind, in MB; undefined once it has exited. */
export function memoryMap(pid: number): MemoryMap | undefined {
  let vmas: Vma[];
  let status: string;
  try {
    vmas = parseSmaps(readFileSync(`/proc/${pid}/smaps`, 'utf8'));
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = { file: 0, brk: 0, arenas: 0, other: 0 };
  let arenas = 0;
  for (let i = 0; i < vmas.length; i++) {
    const v = vmas[i]!;
    if (v.name.startsWith('/')) kb.file += v.rssKb;
    else if (v.name === '[heap]') kb.brk += v.rssKb;
    else if (v.name.startsWith('[stack') || v.name === '[vdso]' || v.name === '[vvar]') kb.other += v.rssKb;
    else if (v.start % ARENA === 0 && v.perms.startsWith('rw')) {
      // An arena heap: its used part (rw) then the rest of the 64 MiB reservation (---p), or all 64 MiB in use.
      const next = vmas[i + 1];
      const reserved = next && next.start === v.end && next.perms === '---p' ? next.end - v.start : v.end - v.start;
      if (reserved === ARENA) {
        arenas++;
        kb.arenas += v.rssKb;
      } else kb.other += v.rssKb;
    } else kb.other += v.rssKb;
  }
  const mb = (k: number): number => Math.round(k / 1024);
  return {
    rssMb: mb(kb.file + kb.brk + kb.arenas + kb.other),
    fileMb: mb(kb.file),
    brkHeapMb: mb(kb.brk),
    mallocArenas: arenas,
    mallocArenasMb: mb(kb.arenas),
    otherAnonMb: mb(kb.other),
    threads: Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 0),
  };
}
