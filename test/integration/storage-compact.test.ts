// Issue 44 item 5: the embedded server's disk. A data folder made by the launcher gives freed pages back on its own
// (tools/mongo-wire/vacuum_test.go); `herald storage compact` rewrites a stopped folder's databases, returning their
// free pages, and refuses a folder a server is serving.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { freePort } from '../../scripts/lib/processes.js';
import { startMongoWire } from '../../scripts/lib/servers.js';
import { cli } from '../helpers/cli.js';

describe('herald storage compact', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-compact-'));
  let server: Awaited<ReturnType<typeof startMongoWire>> | undefined;
  before(async () => {
    const port = await freePort();
    // No vacuum while it runs: the free pages the delete leaves stay in the file for compact to return.
    server = await startMongoWire({ port, dataDir: dir, args: ['-vacuum-every', '0'] });
    const client = new MongoClient(`mongodb://127.0.0.1:${port}/`);
    const docs = client.db('herald').collection<{ _id: string; body: string }>('docs');
    for (let n = 0; n < 6; n++)
      await docs.insertMany(Array.from({ length: 500 }, (_, k) => ({ _id: `${n}-${k}`, body: 'x'.repeat(2000) })));
    await docs.deleteMany({});
    await client.close();
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a folder a server is serving, then returns a stopped folder’s free pages', async () => {
    const busy = await cli({}, ['storage', 'compact', '--data', dir]);
    assert.equal(busy.code, 1);
    assert.match(busy.stderr, /in use by a running mongo-wire: stop it first/);
    await server!.stop();
    server = undefined;
    const run = await cli({}, ['storage', 'compact', '--data', dir]);
    assert.equal(run.code, 0, run.stderr);
    const m = /compacted herald\.sqlite: (\d+) → (\d+) bytes/.exec(run.stdout);
    assert.ok(m, run.stdout);
    assert.ok(Number(m[2]) * 3 < Number(m[1]), run.stdout);
  });
});
