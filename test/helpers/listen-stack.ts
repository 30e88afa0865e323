// The API listening on loopback and a worker in this process, configured as `npm run dev` configures them for
// `herald listen`: herald-listen.example.com pinned to 127.0.0.1, loopback allowed, the test CA trusted (the test
// bed's *.example.com certificate serves as the listener's).
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createWorkerRuntime } from '../../src/process/worker-runtime.js';
import { LISTEN_HOST } from '../../src/cli/listen/dev-listener.js';
import { buildTestApp, closeTestApp } from './app.js';
import { requireEnv } from './env.js';
import { ADMIN_TOKEN, listen } from './integrators.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

export interface ListenStack {
  readonly app: FastifyInstance;
  /** The CLI's environment: API URL, admin token, a private data dir (for `herald init`'s key). */
  readonly env: Record<string, string>;
  /** `--cert … --cert-key …` for `herald listen`. */
  readonly tlsArgs: string[];
  stop(): Promise<void>;
}

/** `names`: more host names pinned to 127.0.0.1 besides the listener's (e.g. an example receiver's). */
export async function startListenStack(names: string[] = []): Promise<ListenStack> {
  const { app, config } = await buildTestApp({
    HERALD_DNS_STATIC: [LISTEN_HOST, ...names].map((n) => `${n}=127.0.0.1`).join(','),
    HERALD_ALLOW_CIDRS: '127.0.0.1/32',
  });
  const runtime = await createWorkerRuntime(config);
  const running = runtime.run();
  const url = await listen(app);
  const dataDir = mkdtempSync(join(requireEnv('HERALD_TEST_TMP'), 'cli-data-'));
  return {
    app,
    env: {
      HERALD_URL: url,
      HERALD_ADMIN_TOKEN: ADMIN_TOKEN,
      HERALD_DATA_DIR: dataDir,
      HERALD_TEMPORAL_UI: 'http://ui.test:8233',
    },
    tlsArgs: ['--cert', requireEnv('HERALD_TEST_TLS_CERT'), '--cert-key', requireEnv('HERALD_TEST_TLS_KEY')],
    async stop() {
      runtime.shutdown();
      await running;
      await closeTestApp(app);
    },
  };
}
