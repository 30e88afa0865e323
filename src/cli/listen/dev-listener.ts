import { join } from 'node:path';

// What `npm run dev` prepares so that deliveries reach `herald listen`, and nothing else: a certificate for one name
// under example.com (RFC 2606, never a real receiver) from a local CA that only the dev stack's processes trust
// (NODE_EXTRA_CA_CERTS), that name pinned to 127.0.0.1 (HERALD_DNS_STATIC), and loopback allowed as a delivery
// address (HERALD_ALLOW_CIDRS=127.0.0.1/32). The listener binds 127.0.0.1 only. The stack adds these exemptions
// knowingly, so it also acknowledges them (HERALD_UNSAFE_EGRESS=1): a shell with NODE_ENV=production still starts it,
// and the API and the worker still log the exemptions at start.

export const LISTEN_HOST = 'herald-listen.example.com';
export const DEFAULT_LISTEN_PORT = 8443;

export const devTlsFiles = (dataDir: string) => ({
  dir: join(dataDir, 'tls'),
  caBundle: join(dataDir, 'tls', 'ca-bundle.pem'),
  cert: join(dataDir, 'tls', 'leaf.pem'),
  key: join(dataDir, 'tls', 'leaf.key'),
});

/** The environment the dev stack's API and worker get on top of the developer's own (whose values are kept). */
export function devListenerEnv(env: NodeJS.ProcessEnv, dataDir: string): NodeJS.ProcessEnv {
  const add = (current: string | undefined, value: string) =>
    current?.split(',').includes(value) ? current : [current, value].filter(Boolean).join(',');
  return {
    HERALD_DNS_STATIC: add(env.HERALD_DNS_STATIC, `${LISTEN_HOST}=127.0.0.1`),
    HERALD_ALLOW_CIDRS: add(env.HERALD_ALLOW_CIDRS, '127.0.0.1/32'),
    NODE_EXTRA_CA_CERTS: devTlsFiles(dataDir).caBundle,
    HERALD_UNSAFE_EGRESS: '1',
  };
}
