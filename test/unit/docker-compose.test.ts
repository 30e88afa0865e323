// No Docker engine runs here, so the compose file is checked as data: the services, their images, ports, health
// checks, dependencies and environment.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { configSchema } from '../../src/config.js';
import { checkEgressExemptions } from '../../src/net/egress-exemptions.js';
import { TEMPORAL_SERVER_VERSION } from '../../scripts/lib/servers.js';
import { declaredNodeRange, satisfiesNodeRange } from '../helpers/node-engines.js';

interface Service {
  image?: string;
  build?: unknown;
  command?: unknown;
  ports?: string[];
  healthcheck?: { test: unknown };
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, unknown>;
  volumes?: string[];
}
const compose = parse(readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
/** The TypeScript file `npm run build` compiles into `dist/…js`, if there is one. */
const sourceOf = (built: string): boolean =>
  existsSync(new URL(`../../${built.replace(/^dist\//, '').replace(/\.js$/, '.ts')}`, import.meta.url));
const svc = (name: string): Service => {
  const s = compose.services[name];
  assert.ok(s, `service ${name} is missing`);
  return s;
};

/** The environment as compose interpolates it from an empty shell: `${X:-d}` → d, a required `${X:?…}` → a value. */
const interpolated = (environment: Service['environment'], shell: Record<string, string> = {}) =>
  Object.fromEntries(
    Object.entries(environment ?? {}).map(([k, v]) => [
      k,
      String(v)
        .replace(/^\$\{([A-Z_]+):\?.*\}$/, (_, name: string) => shell[name] ?? 'x'.repeat(44))
        .replace(/^\$\{([A-Z_]+):-(.*)\}$/, (_, name: string, fallback: string) => shell[name] || fallback),
    ]),
  );

describe('docker-compose.yml', () => {
  it('runs official MongoDB 7 with a health check and a named volume', () => {
    const mongo = svc('mongodb');
    assert.match(mongo.image ?? '', /^mongo:7(\.|$)/);
    assert.ok(mongo.healthcheck);
    assert.ok(mongo.volumes?.some((v) => v.startsWith('mongodb-data:')));
    assert.ok('mongodb-data' in compose.volumes);
  });

  it('runs the Temporal server of the dev server and the cluster, its schema, UI and the shared dynamic config', () => {
    // One version everywhere: the dev server (Temporal CLI 1.9.1 embeds server v1.32.0: `go version -m`, and
    // cli-temporal.test.ts reads it from the running server), `npm run cluster` (tools/temporal-server) and compose.
    assert.equal(svc('temporal').image, `temporalio/server:${TEMPORAL_SERVER_VERSION}`);
    assert.equal(svc('temporal-schema').image, `temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`);
    const goMod = readFileSync(new URL('../../tools/temporal-server/go.mod', import.meta.url), 'utf8');
    const pinned = /^\s*go\.temporal\.io\/server (v\S+)/m.exec(goMod)?.[1];
    assert.equal(pinned, `v${TEMPORAL_SERVER_VERSION}`, 'tools/temporal-server builds another version');
    const mount = '/etc/temporal/config/dynamicconfig/herald.yaml';
    assert.ok(svc('temporal').volumes?.includes(`./ops/temporal-dynamic-config.yaml:${mount}:ro`));
    assert.equal(svc('temporal').environment?.DYNAMIC_CONFIG_FILE_PATH, mount);
    assert.equal(svc('temporal').environment?.DB, 'postgres12');
    assert.equal(svc('temporal-schema').depends_on?.postgresql?.condition, 'service_healthy');
    assert.equal(svc('temporal').depends_on?.['temporal-schema']?.condition, 'service_completed_successfully');
    const schema = JSON.stringify(svc('temporal-schema').command);
    for (const step of ['create-database', 'setup-schema -v 0.0', 'update-schema', 'postgresql/v12/'])
      assert.ok(schema.includes(step), `the schema job lacks ${step}`);
    assert.match(schema, /temporal:temporal temporal_visibility:visibility/);
    assert.ok(svc('temporal').healthcheck && svc('postgresql').healthcheck);
    assert.ok(svc('temporal-ui').ports?.some((p) => p.endsWith(':8233:8080')));
  });

  it("creates the namespace and Herald's search attributes with `herald temporal setup`, once, before the API and workers", () => {
    const setup = svc('temporal-setup');
    assert.equal(setup.build, '.');
    assert.match(JSON.stringify(setup.command), /node bin\/herald\.mjs temporal setup --create-namespace/);
    assert.equal(setup.depends_on?.temporal?.condition, 'service_healthy');
    assert.equal((setup as Service & { restart?: string }).restart, 'no');
    const env = interpolated(setup.environment);
    assert.equal(env.TEMPORAL_ADDRESS, 'temporal:7233');
    assert.equal(
      configSchema.safeParse(env).success,
      true,
      'temporal-setup: environment does not pass the config schema',
    );
    assert.ok(setup.volumes?.some((m) => m.endsWith(':/etc/herald/temporal-tls:ro')));
    for (const secret of ['HERALD_MASTER_KEY', 'HERALD_ADMIN_TOKEN', 'HERALD_CURSOR_SECRET'])
      assert.ok(!(secret in (setup.environment ?? {})), `temporal-setup does not need ${secret}`);
  });

  it('runs two worker replicas of the one worker service', () => {
    assert.equal((svc('worker') as Service & { deploy?: { replicas?: number } }).deploy?.replicas, 2);
  });

  it('builds the API and the worker from the Dockerfile with a complete, valid environment', () => {
    for (const name of ['api', 'worker']) {
      const s = svc(name);
      assert.equal(s.build, '.');
      assert.equal(s.depends_on?.mongodb?.condition, 'service_healthy');
      assert.equal(s.depends_on?.['temporal-setup']?.condition, 'service_completed_successfully');
      const env = interpolated(s.environment);
      assert.equal(env.MONGODB_URL, 'mongodb://mongodb:27017/');
      assert.equal(env.TEMPORAL_ADDRESS, 'temporal:7233');
      assert.equal(env.NODE_ENV, 'production');
      for (const secret of ['HERALD_MASTER_KEY', 'HERALD_ADMIN_TOKEN', 'HERALD_CURSOR_SECRET']) {
        assert.match(
          String(s.environment?.[secret]),
          /^\$\{[A-Z_]+:\?/,
          `${secret} must be required from the environment`,
        );
      }
      assert.equal(configSchema.safeParse(env).success, true, `${name}: environment does not pass the config schema`);
    }
    assert.deepEqual(svc('api').command, ['node', 'dist/src/process/server.js']);
    assert.deepEqual(svc('worker').command, ['node', 'dist/src/process/worker.js']);
    assert.ok(svc('api').ports?.includes('127.0.0.1:3000:3000'));
    assert.ok(svc('api').healthcheck);
    assert.match(JSON.stringify(svc('api').healthcheck?.test), /\/v1\/health\/ready/);
  });

  it('passes the Temporal connection settings (address, namespace, TLS, mTLS, API key) through to the API, the workers and the setup', () => {
    const variables = Object.keys(configSchema.shape).filter((k) =>
      /^TEMPORAL_(ADDRESS|NAMESPACE|TLS|API_KEY)/.test(k),
    );
    assert.ok(variables.length >= 9, variables.join());
    const dir = '/etc/herald/temporal-tls';
    const cloud = {
      TEMPORAL_ADDRESS: 'herald-prod.a1b2c.tmprl.cloud:7233',
      TEMPORAL_NAMESPACE: 'herald-prod.a1b2c',
      TEMPORAL_TLS_CERT_FILE: `${dir}/client.pem`,
      TEMPORAL_TLS_KEY_FILE: `${dir}/client.key`,
    };
    for (const name of ['api', 'worker', 'temporal-setup']) {
      const s = svc(name);
      for (const v of variables) assert.match(String(s.environment?.[v]), new RegExp(`^\\$\\{${v}:-`), `${name}: ${v}`);
      assert.ok(
        s.volumes?.some((m) => m.endsWith(`:${dir}:ro`)),
        `${name}: the certificate folder is mounted read-only`,
      );
      const unset = interpolated(s.environment);
      assert.equal(unset.TEMPORAL_ADDRESS, 'temporal:7233');
      assert.equal(configSchema.parse(unset).TEMPORAL_TLS_CERT_FILE, undefined, 'unset stays unset');
      const given = configSchema.parse(interpolated(s.environment, cloud));
      assert.deepEqual(
        [given.TEMPORAL_ADDRESS, given.TEMPORAL_NAMESPACE, given.TEMPORAL_TLS_CERT_FILE, given.TEMPORAL_TLS_KEY_FILE],
        Object.values(cloud),
      );
    }
    // The worker gets its SIGTERM grace (30 s) + 5 s before compose kills it.
    assert.equal((svc('worker') as Service & { stop_grace_period?: string }).stop_grace_period, '40s');
  });

  it('sets no development egress exemption, so the API and the worker start with NODE_ENV=production', () => {
    const exemptions = ['HERALD_DNS_STATIC', 'HERALD_ALLOW_CIDRS', 'NODE_EXTRA_CA_CERTS', 'HERALD_UNSAFE_EGRESS'];
    for (const name of ['api', 'worker']) {
      const environment = svc(name).environment ?? {};
      for (const v of exemptions) assert.ok(!(v in environment), `${name}: ${v} is set`);
      assert.equal(checkEgressExemptions(configSchema.parse(interpolated(environment))), null, name);
    }
    const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
    for (const v of exemptions) assert.ok(!dockerfile.includes(v), `the image sets ${v}`);
  });

  it('has a Dockerfile that builds the dist/ entry points the services run', () => {
    const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
    assert.match(dockerfile, /npm ci/);
    assert.match(dockerfile, /npm run build/);
    const entries = [svc('api').command, svc('worker').command].map((c) => (c as string[])[1]!);
    assert.match(dockerfile, new RegExp(`CMD \\["node", "${entries[0]}"\\]`), 'the image starts the API by default');
    for (const entry of entries) assert.ok(sourceOf(entry), `${entry} is built from no source file`);
  });

  it('builds and runs the image on the Node that `npm run test:node24` tests, within engines.node', () => {
    const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
    const tools = readFileSync(new URL('../../scripts/tools.sh', import.meta.url), 'utf8');
    const tested = /^NODE24_VERSION=(\S+)$/m.exec(tools)?.[1] ?? assert.fail('scripts/tools.sh pins no NODE24_VERSION');
    const images = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    const major = tested.split('.')[0];
    assert.deepEqual(images, [`node:${major}-bookworm-slim`, `node:${major}-bookworm-slim`]);
    assert.ok(satisfiesNodeRange(tested), `Node ${tested} is outside engines.node ${declaredNodeRange()}`);
  });

  it('bundles the workflows at build time, into the file the compiled worker loads', () => {
    const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
    assert.match(dockerfile, /npm run build && npm run bundle:workflows && npm prune/);
    assert.match(
      dockerfile,
      /COPY portal \.\/portal\n[\s\S]*RUN npm run build:portal && /,
      'the portal page is built in',
    );
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const script = /^node (dist\/\S+\.js)$/.exec(manifest.scripts['bundle:workflows'] ?? '')?.[1];
    assert.ok(script && sourceOf(script), `npm run bundle:workflows runs ${script}, built from no source file`);
  });
});
