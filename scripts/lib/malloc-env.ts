// glibc malloc settings for a worker process, as the image sets them: the Dockerfile is their one source
// (docs/scale-and-size.md, "Worker memory").
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './servers.js';

/** The Dockerfile's `ENV MALLOC_…=…` lines, e.g. { MALLOC_ARENA_MAX: '2', … }, for a worker started outside it. */
export function imageMallocEnv(): Record<string, string> {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  return Object.fromEntries([...dockerfile.matchAll(/^ENV (MALLOC_[A-Z_]+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
}
