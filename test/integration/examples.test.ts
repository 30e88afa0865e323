// examples/: the TypeScript (Fastify + herald/receiver) and Python (cryptography) receivers, each run as its own
// process over HTTPS, get a real delivery from the stack and verify it, and refuse a forged one.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../scripts/lib/processes.js';
import { root } from '../../scripts/lib/servers.js';
import { cli, waitForOutput } from '../helpers/cli.js';
import { requireEnv } from '../helpers/env.js';
import { startListenStack, type ListenStack } from '../helpers/listen-stack.js';

/** A venv with examples/python-receiver/requirements.txt, made once in .tools/ (like scripts/tools.sh's). */
function pythonWithCryptography(): string {
  const requirements = join(root, 'examples/python-receiver/requirements.txt');
  const venv = join(root, '.tools/examples-venv');
  const stamp = join(
    venv,
    `.stamp-${createHash('sha256').update(readFileSync(requirements)).digest('hex').slice(0, 12)}`,
  );
  if (!existsSync(stamp)) {
    spawnSync('rm', ['-rf', venv]);
    for (const [cmd, args] of [
      ['python3', ['-m', 'venv', venv]],
      [join(venv, 'bin/pip'), ['install', '--quiet', '--disable-pip-version-check', '-r', requirements]],
    ] as const) {
      const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 180_000 });
      if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr?.toString() ?? r.error}`);
    }
    writeFileSync(stamp, '');
  }
  return join(venv, 'bin/python');
}

/** A forged delivery: plausible headers, a signature that is not Herald's. */
function forge(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ id: randomUUID(), eventType: 'customer.created' });
    const req = request(
      {
        host: '127.0.0.1',
        port,
        servername: 'hooks.example.com',
        method: 'POST',
        path: '/webhooks/herald',
        headers: {
          'content-type': 'application/json',
          'x-service-webhook-delivery-id': randomUUID(),
          'x-service-webhook-event-id': randomUUID(),
          'x-service-webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'x-service-webhook-key-id': randomUUID(),
          'x-service-webhook-algorithm': 'ECDSA_P256_SHA256',
          'x-service-webhook-signature': 'ab'.repeat(64),
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('examples/ receivers', { timeout: 300_000 }, () => {
  let stack: ListenStack;
  const children: ChildProcess[] = [];
  before(async () => {
    stack = await startListenStack(['hooks.example.com']);
    assert.equal((await cli(stack.env, ['init'])).code, 0);
  });
  after(async () => {
    for (const child of children) child.kill('SIGTERM');
    await stack.stop();
  });

  const receivers = [
    {
      name: 'TypeScript (Fastify)',
      dir: 'typescript-receiver',
      command: () => [process.execPath, '--import', 'tsx', 'server.ts'],
    },
    { name: 'Python (cryptography)', dir: 'python-receiver', command: () => [pythonWithCryptography(), 'receiver.py'] },
  ];

  for (const receiver of receivers) {
    it(`${receiver.name} verifies a real delivery and refuses a forged one`, async () => {
      const port = await freePort();
      const url = `https://hooks.example.com:${port}/webhooks/herald`;
      const created = await cli(stack.env, ['subscriptions', 'create', '--url', url, '--json']);
      const sub = JSON.parse(created.stdout) as { id: string; publicKey: string };
      const [cmd, ...args] = receiver.command() as [string, ...string[]];
      const child = spawn(cmd, args, {
        cwd: join(root, 'examples', receiver.dir),
        env: {
          ...process.env,
          HERALD_WEBHOOK_PUBLIC_KEY: sub.publicKey,
          PORT: String(port),
          TLS_CERT: requireEnv('HERALD_TEST_TLS_CERT'),
          TLS_KEY: requireEnv('HERALD_TEST_TLS_KEY'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let out = '';
      child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
      await waitForOutput(
        () => out,
        (t) => t.includes('listening on'),
        60_000,
      );

      const sent = await cli(stack.env, ['subscriptions', 'test', sub.id, '--json']);
      const test = JSON.parse(sent.stdout) as { delivery: { id: string }; attempt: { statusCode: number } };
      assert.equal(test.attempt.statusCode, 204);
      const line = JSON.stringify({ verified: true, deliveryId: test.delivery.id });
      await waitForOutput(
        () => out,
        (t) => t.includes(line.slice(0, -1)),
      );
      assert.match(out, /"eventType":"webhook\.test"/);

      assert.equal(await forge(port), 400);
      await waitForOutput(
        () => out,
        (t) => t.includes('"verified": false') || t.includes('"verified":false'),
      );
    });
  }
});
