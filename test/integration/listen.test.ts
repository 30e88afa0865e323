// `herald listen` against the real stack configured as `npm run dev` configures it: every delivery verified and
// printed, a chosen status answered (a failing attempt, then a manual retry), deliveries forwarded to a local URL,
// and a request that does not verify refused and reported.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { WebhookVerifier } from '../../src/receiver/index.js';
import { cli, startCli, waitForOutput } from '../helpers/cli.js';
import { eventually } from '../helpers/deliveries.js';
import { startListenStack, type ListenStack } from '../helpers/listen-stack.js';

const LINE = /^\d\d:\d\d:\d\d {2}webhook\.test {2}([0-9a-f-]{36}) {2}attempt (\d+) {2}verified {2}→ (\d+)/m;

describe('herald listen', { timeout: 120_000 }, () => {
  let stack: ListenStack;
  const stop = new AbortController();
  before(async () => {
    stack = await startListenStack();
    assert.equal((await cli(stack.env, ['init'])).code, 0);
  });
  after(async () => {
    stop.abort();
    await stack.stop();
  });
  const listen = (...argv: string[]) =>
    startCli(stack.env, ['listen', '--port', '0', ...stack.tlsArgs, ...argv], stop.signal);

  it('init is idempotent: a second run keeps the key the API accepts', async () => {
    const again = await cli(stack.env, ['init']);
    assert.match(again.stdout, /already signs as integrator [0-9a-f-]{36}/);
  });

  it('answers a chosen status, so the retries show: attempt 1 → 500, then a manual retry → attempt 2', async () => {
    const run = listen('--status', '500', '--test', '--count', '2');
    const first = await waitForOutput(run.output, (t) => LINE.test(t));
    const [, deliveryId, attempt, status] = LINE.exec(first)!;
    assert.deepEqual([attempt, status], ['1', '500']);
    // The listener prints the request as it answers it; the attempt is recorded once Herald has read that answer.
    const recorded = await eventually(
      async () => {
        const shown = await cli(stack.env, ['deliveries', 'get', deliveryId!, '--json']);
        return (JSON.parse(shown.stdout) as { attempts: Array<{ statusCode: number }> }).attempts[0];
      },
      10_000,
      'attempt 1 recorded',
    );
    assert.equal(recorded.statusCode, 500);
    assert.equal((await cli(stack.env, ['deliveries', 'retry', deliveryId!])).code, 0);
    const { code, stdout } = await run.done;
    assert.equal(code, 0);
    assert.match(stdout.trim().split('\n')[1]!, new RegExp(`${deliveryId}  attempt 2  verified  → 500$`));
  });

  it('forwards verified deliveries to a local URL and answers its status', async () => {
    const got: Array<{ headers: IncomingHttpHeaders; body: Buffer }> = [];
    const local = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((r) => local.listen(0, '127.0.0.1', r));
    try {
      const target = `http://127.0.0.1:${(local.address() as AddressInfo).port}/hooks`;
      const { code, stdout, stderr } = await listen('--forward-to', target, '--test', '--count', '1').done;
      assert.equal(code, 0, stderr);
      assert.match(stdout, new RegExp(`verified  → 202  forwarded to ${target}\\n$`));
      const subscriptionId = /subscription ([0-9a-f-]{36})/.exec(stderr)![1]!;
      const sub = JSON.parse((await cli(stack.env, ['subscriptions', 'get', subscriptionId, '--json'])).stdout) as {
        publicKey: string;
      };
      const event = new WebhookVerifier(sub.publicKey).verify(got[0]!.body, got[0]!.headers);
      assert.equal(event.eventType, 'webhook.test');
    } finally {
      local.close();
    }
  });

  it('refuses and reports a request that does not verify; refuses --forward-to off this machine', async () => {
    const run = listen('--count', '1');
    const banner = await waitForOutput(run.stderr, (t) => t.includes('Ctrl-C stops'));
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(banner)![1]);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, servername: 'herald-listen.example.com', method: 'POST', path: '/' },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{"id":"x","eventType":"forged"}');
    });
    assert.equal(status, 400);
    const { stdout } = await run.done;
    assert.match(
      stdout,
      /^\d\d:\d\d:\d\d {2}\? {2}- {2}attempt \? {2}NOT VERIFIED \(missing_header: missing header X-Service-Webhook-Delivery-Id\) {2}→ 400\n$/,
    );
    const off = await cli(stack.env, ['listen', '--forward-to', 'https://example.com/hook']);
    assert.equal(off.code, 2);
    assert.match(off.stderr, /--forward-to must be an http\(s\) URL on this machine/);
  });
});
