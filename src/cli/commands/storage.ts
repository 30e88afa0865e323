// `herald storage compact`: gives an embedded MongoDB-wire data folder's free pages back to the file system
// (docs/retention.md, "Disk"). It runs the project's launcher (`mongo-wire -compact`), on a folder no server serves.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineCommand } from '../program.js';
import { CliError } from '../support.js';
import type { CliCommand } from '../types.js';

export const storageCompactCommand: CliCommand = defineCommand({
  name: 'storage compact',
  summary:
    "Development: return a stopped MongoDB-wire data folder's free pages to the file system (its databases rewritten)",
  options: {
    data: { type: 'string', value: 'dir', help: 'the data folder (default .data/mongo, as npm run dev uses)' },
  },
  notes:
    'Stop the server first (a folder it serves is refused). Folders made since retention give freed pages back as\n' +
    'they go; this converts an older one once. HERALD_MONGO_WIRE_BIN: the launcher (default .tools/bin/mongo-wire).',
  async action({ values }, io) {
    const dir = resolve(typeof values.data === 'string' ? values.data : '.data/mongo');
    const bin = resolve(io.env.HERALD_MONGO_WIRE_BIN ?? '.tools/bin/mongo-wire');
    if (!existsSync(bin)) throw new CliError(`no MongoDB-wire launcher at ${bin}: build it with scripts/tools.sh`);
    if (!existsSync(dir)) throw new CliError(`no data folder at ${dir}`);
    const child = spawn(bin, ['-compact', '-data', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(io.stdout, { end: false });
    child.stderr.pipe(io.stderr, { end: false });
    const code = await new Promise<number>((done, fail) => {
      child.on('error', fail);
      child.on('close', (c) => done(c ?? 1));
    });
    return code === 0 ? 0 : 1;
  },
});
