// The Node every test process runs on: the machine's under `npm test`, Node 24 (.tools/node24) under
// `npm run test:node24` and in CI's smoke run (scripts/test.ts). HERALD_TEST_NODE_MAJOR is the major the run asked for.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { declaredNodeRange, satisfiesNodeRange } from '../helpers/node-engines.js';
import { requireEnv } from '../helpers/env.js';

const run = promisify(execFile);

describe('the Node the tests run on', () => {
  it('is the major the run asked for', () => {
    assert.equal(process.version.split('.')[0], `v${requireEnv('HERALD_TEST_NODE_MAJOR')}`);
  });

  it('is within the range package.json declares', () => {
    assert.ok(satisfiesNodeRange(process.version), `${process.version} is outside engines.node ${declaredNodeRange()}`);
  });

  it('is the Node of the processes the tests start, by process.execPath and by name on PATH', async () => {
    // By name: what `#!/usr/bin/env node` finds (npm, npx, bin/herald.mjs).
    for (const node of [process.execPath, 'node']) {
      const { stdout } = await run(node, ['-p', 'process.version']);
      assert.equal(stdout.trim(), process.version, node);
    }
    // As `npm run` runs a script (npm run dev in test/integration/quick-start.test.ts).
    const { stdout } = await run('npm', ['exec', '--offline', '-c', 'node -p process.version']);
    assert.equal(stdout.trim(), process.version, 'node in an npm script');
  });
});

describe('the engines range reader', () => {
  it('reads >= and < comparators, and refuses any other form', () => {
    const range = '>=20.19.0 <25';
    for (const v of ['20.19.0', 'v22.12.0', '24.11.1']) assert.ok(satisfiesNodeRange(v, range), v);
    for (const v of ['20.18.3', '18.20.0', '25.0.0', 'v26.1.0']) assert.ok(!satisfiesNodeRange(v, range), v);
    assert.throws(() => satisfiesNodeRange('24.0.0', '^24'), /only >= and </);
  });
});
