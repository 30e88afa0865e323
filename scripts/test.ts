// `npm test`: installs missing tools (promtool too), starts one throw-away test bed (MongoDB-wire + Temporal dev
// server on free ports, workflows bundled once), runs unit and integration tests with node's test runner, stops the
// servers and ends with `N passed, N failed`.  `npm test -- test/unit/x.test.ts` runs some files only.
// With CI=true it then runs a few of them again on Node 24 (the image's Node, from .tools/node24) against the same
// bed; `npm run test:node24` runs this whole script on Node 24 instead (scripts/with-node24.sh).
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { delimiter, dirname, join, relative } from 'node:path';
import { node24Path, root } from './lib/servers.js';
import { exitWithTestStatus } from './lib/processes.js';
import { startTestBed } from './lib/test-bed.js';
import { buildPortal, ensureChromium } from './lib/portal.js';

/** The smoke run on Node 24 in CI: the Node check, the signer, the API as a process, a delivery end to end. */
const NODE24_SMOKE = [
  'test/unit/node-version.test.ts',
  'test/unit/webhook-signature.test.ts',
  'test/integration/api-process.test.ts',
  'test/integration/delivery-e2e.test.ts',
];

interface Run {
  readonly label: string;
  readonly code: number;
  readonly pass: number;
  readonly failed: number;
  readonly skipped: number;
}

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const major = (version: string): string => version.replace(/^v/, '').split('.')[0] ?? '';

/** Runs `files` with node's test runner on the Node binary `node`; the TAP report goes to `tap`. */
async function runTests(node: string, files: string[], env: NodeJS.ProcessEnv, tap: string): Promise<Run> {
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const concurrency = process.env.HERALD_TEST_CONCURRENCY ?? '2';
  const code = await new Promise<number>((resolve) => {
    const child = spawn(
      node,
      [
        '--import',
        'tsx',
        '--test',
        `--test-concurrency=${concurrency}`,
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        '--test-reporter=tap',
        `--test-reporter-destination=${tap}`,
        ...files,
      ],
      {
        cwd: root,
        env: { ...env, HERALD_TEST_NODE_MAJOR: env.HERALD_TEST_NODE_MAJOR ?? major(version) },
        stdio: 'inherit',
      },
    );
    child.on('exit', (c) => resolve(c ?? 1));
  });
  const summary = readFileSync(tap, 'utf8');
  const count = (key: string): number => Number(new RegExp(`^# ${key} (\\d+)$`, 'm').exec(summary)?.[1] ?? 0);
  return {
    label: `Node ${version}, ${files.length} files`,
    code,
    pass: count('pass'),
    failed: count('fail') + count('cancelled'),
    skipped: count('skipped'),
  };
}

const counts = (r: Omit<Run, 'label' | 'code'>): string =>
  `${r.pass} passed, ${r.failed} failed${r.skipped ? `, ${r.skipped} skipped` : ''}`;

async function main(): Promise<number> {
  const started = Date.now();
  // `npm run test:node24` already runs everything on Node 24: no second pass.
  const smoke = process.env.CI === 'true' && major(process.version) !== '24';
  const bed = await startTestBed('herald-test-', { promtool: true, node24: smoke }); // ops-files.test.ts runs promtool
  try {
    const env: NodeJS.ProcessEnv = { ...bed.env, NODE_ENV: 'test' };
    console.log(`test bed: MongoDB-wire ${env.MONGODB_URL}, Temporal ${env.TEMPORAL_ADDRESS}, logs in ${bed.tmp}`);
    const requested = process.argv.slice(2).filter((a) => a !== '--');
    const files = (requested.length > 0 ? requested : testFiles(join(root, 'test')))
      .map((f) => relative(root, f))
      .sort();
    // The portal's page is served from its build; its browser tests drive Debian's Chromium.
    buildPortal();
    if (files.some((f) => f.startsWith('test/browser/'))) ensureChromium();
    const runs = [await runTests(process.execPath, files, env, join(bed.tmp, 'results.tap'))];
    if (smoke) {
      console.log(`\nsmoke run on Node 24 (CI=true): ${NODE24_SMOKE.join(', ')}`);
      // Node 24 first on PATH too, for what the tests start by name (npm, `#!/usr/bin/env node` scripts).
      const path = `${dirname(node24Path)}${delimiter}${env.PATH ?? ''}`;
      // NODE and npm_node_execpath: set by `npm test` to the Node npm runs on.
      const node24 = { NODE: node24Path, npm_node_execpath: node24Path };
      const env24 = { ...env, ...node24, PATH: path, HERALD_TEST_NODE_MAJOR: '24' };
      runs.push(await runTests(node24Path, NODE24_SMOKE, env24, join(bed.tmp, 'results-node24.tap')));
    }
    console.log(`\ntest run took ${Math.round((Date.now() - started) / 1000)} s`);
    for (const r of runs) console.log(`${r.label}: ${counts(r)}`);
    const total = { pass: 0, failed: 0, skipped: 0 };
    for (const r of runs) for (const k of ['pass', 'failed', 'skipped'] as const) total[k] += r[k];
    console.log(counts(total));
    return runs.some((r) => r.code !== 0) || total.failed > 0 ? 1 : 0;
  } finally {
    await bed.stop();
  }
}

exitWithTestStatus(main());
