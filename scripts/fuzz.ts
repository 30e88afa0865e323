// `npm run fuzz`: Schemathesis (pinned, installed on first use into .tools/venv-fuzz, or HERALD_FUZZ_VENV) against a
// fresh API and worker — a throw-away MongoDB-wire and Temporal dev server, nothing but loopback traffic — through a
// signing proxy (scripts/lib/signing-proxy.ts) that signs as one registered integrator. It fails on any server
// error, any status the document does not declare, and any schema-valid request refused. Bounded: a fixed seed and
// example count (override with `npm run fuzz -- --max-examples 50`, any `schemathesis run` flag) and a time limit.
// Not part of `npm test` nor CI.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compressedHexOf, generateP256Key } from '../src/crypto/p256.js';
import { freePort, spawnManaged, waitForPort, type Managed } from './lib/processes.js';
import { root } from './lib/servers.js';
import { SIGN_PLACEHOLDER, startSigningProxy } from './lib/signing-proxy.js';
import { startTestBed } from './lib/test-bed.js';

const SCHEMATHESIS_VERSION = '4.32.5';
const TIME_LIMIT_MS = 15 * 60_000;
/** What the run judges: crashes, undeclared statuses, refused valid data; plus 405 for undeclared methods. */
const CHECKS =
  'not_a_server_error,status_code_conformance,positive_data_acceptance,unsupported_method,allow_header_conformance';
const DEFAULT_ARGS = ['--max-examples', '25', '--seed', '33', '--workers', '1', '--request-timeout', '30'];

/** The Schemathesis executable, installed with pip into its own venv when missing or of another version. */
function ensureSchemathesis(): string {
  const venv = process.env.HERALD_FUZZ_VENV ?? join(root, '.tools/venv-fuzz');
  const stamp = join(venv, `.herald-schemathesis-${SCHEMATHESIS_VERSION}`);
  if (!existsSync(stamp)) {
    console.log(`fuzz: installing schemathesis==${SCHEMATHESIS_VERSION} into ${venv}`);
    rmSync(venv, { recursive: true, force: true });
    const steps: string[][] = [
      ['python3', '-m', 'venv', venv],
      [
        join(venv, 'bin/pip'),
        'install',
        '--quiet',
        '--disable-pip-version-check',
        `schemathesis==${SCHEMATHESIS_VERSION}`,
      ],
    ];
    for (const [cmd, ...args] of steps)
      if (spawnSync(cmd as string, args, { stdio: 'inherit' }).status !== 0) throw new Error(`${cmd} failed`);
    writeFileSync(stamp, '');
  }
  return join(venv, 'bin/schemathesis');
}

async function main(): Promise<number> {
  const schemathesis = ensureSchemathesis();
  const bed = await startTestBed('herald-fuzz-');
  const stops: Array<() => Promise<void>> = [() => bed.stop()];
  try {
    const port = await freePort();
    const adminToken = randomBytes(24).toString('base64url');
    const env: NodeJS.ProcessEnv = {
      ...bed.env,
      HERALD_HOST: '127.0.0.1',
      HERALD_PORT: String(port),
      HERALD_ADMIN_TOKEN: adminToken,
      HERALD_MASTER_KEY: randomBytes(32).toString('base64'),
      HERALD_METRICS_PORT: 'off',
      HERALD_WORKER_METRICS_PORT: 'off',
      HERALD_TEMPORAL_METRICS_PORT: 'off',
      LOG_LEVEL: 'warn',
      // The run judges the API's answers to data, not its budgets (their own tests cover those): budgets it would
      // spend in seconds are raised, so a 429 or 409 never stands for a refused request.
      HERALD_RATE_LIMIT_PER_SECOND: '100000',
      HERALD_RATE_LIMIT_BURST: '100000',
      HERALD_AUTH_FAILURE_LIMIT: '1000000',
      HERALD_MAX_SUBSCRIPTIONS: '1000000',
      HERALD_TEST_SENDS_PER_HOUR: '1000000',
      HERALD_KEY_ROTATIONS_PER_HOUR: '1000000',
      HERALD_RESEND_BUDGET_PER_HOUR: '1000000',
      HERALD_CAMPAIGNS_PER_INTEGRATOR: '100',
      HERALD_SUBSCRIPTION_CREATES_PER_HOUR: '1000000',
      HERALD_CAMPAIGN_STARTS_PER_HOUR: '1000000',
    };
    // As `npm run dev`: the API and a worker (workflow queries need one), each with its DNS answer (offline-dns.mjs).
    const start = (name: string, script: string, address: string): Managed => {
      const args = ['--import', 'tsx', '--import', join(root, 'scripts/lib/offline-dns.mjs'), join(root, script)];
      const log = join(bed.tmp, `${name}.log`);
      const proc = spawnManaged(name, process.execPath, args, {
        env: { ...env, HERALD_FUZZ_DNS_ADDRESS: address },
        log,
      });
      stops.unshift(() => proc.stop());
      return proc;
    };
    start('worker', 'src/process/worker.ts', '192.0.2.1');
    const api = start('api', 'src/process/server.ts', '93.184.215.14');
    await waitForPort(port, 'the API', api.child, 60_000);
    const apiUrl = `http://127.0.0.1:${port}`;

    const key = generateP256Key();
    const pubkey = `0x${compressedHexOf(key)}`;
    await registerIntegrator(apiUrl, adminToken, pubkey);
    const proxy = await startSigningProxy({ host: '127.0.0.1', port }, key);
    stops.unshift(() => proxy.close());

    const schema = join(bed.tmp, 'openapi.json');
    writeFileSync(schema, await (await fetch(`${apiUrl}/openapi.json`)).text());
    const args = [
      'run',
      schema,
      '--url',
      proxy.url,
      '--checks',
      CHECKS,
      ...DEFAULT_ARGS,
      '--header',
      `X-Pubkey: ${pubkey}`,
      '--header',
      'X-Timestamp: 0',
      '--header',
      `X-Signature: ${SIGN_PLACEHOLDER}`,
      '--report',
      'junit',
      '--report-dir',
      join(bed.tmp, 'reports'),
      ...process.argv.slice(2),
    ];
    console.log(`fuzz: API ${apiUrl}, signing proxy ${proxy.url}, schemathesis ${SCHEMATHESIS_VERSION}`);
    const code = await run(schemathesis, args, bed.tmp, TIME_LIMIT_MS);
    console.log(`fuzz: ${proxy.signed()} requests signed; schemathesis exited ${code}`);
    if (code !== 0) {
      process.env.HERALD_KEEP_TMP = '1'; // read by bed.stop(): the API's log and the reports stay
      console.log(`fuzz: the API's log and the JUnit report are kept in ${bed.tmp}`);
    }
    return code;
  } finally {
    for (const stop of stops) await stop();
  }
}

async function registerIntegrator(apiUrl: string, token: string, pubkey: string): Promise<void> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown): Promise<{ id: string }> => {
    const res = await fetch(`${apiUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string };
  };
  const { id } = await post('/internal/v1/integrators', { name: 'fuzz' });
  await post(`/internal/v1/integrators/${id}/keys`, { publicKey: pubkey });
}

/** Runs in the temp folder, where Schemathesis keeps its own state (.schemathesis/). */
function run(cmd: string, args: string[], cwd: string, limitMs: number): Promise<number> {
  const env = { ...process.env, SCHEMATHESIS_HOOKS: 'fuzz_hooks', PYTHONPATH: join(root, 'scripts/lib') };
  const child = spawn(cmd, args, { stdio: 'inherit', cwd, env });
  const timer = setTimeout(() => {
    console.error(`fuzz: stopped after ${limitMs / 60_000} minutes`);
    child.kill('SIGTERM');
  }, limitMs);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code ?? 1);
    }),
  );
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`fuzz: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
