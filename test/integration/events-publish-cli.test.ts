// `herald events publish`: the command's run() with in-memory streams against a real listening app.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { eventsPublishCommand, parseEvents } from '../../src/cli/commands/events-publish.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { sampleEvent } from '../helpers/events.js';
import { ADMIN_TOKEN, listen, registerIntegrator } from '../helpers/integrators.js';

async function run(args: string[], env: NodeJS.ProcessEnv, stdin = '') {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  const code = await eventsPublishCommand.run(args, {
    stdin: Readable.from([Buffer.from(stdin)]),
    stdout,
    stderr,
    env,
  });
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

describe('herald events publish', () => {
  let app: FastifyInstance;
  let env: NodeJS.ProcessEnv;
  let integratorId: string;
  let dir: string;

  before(async () => {
    ({ app } = await buildTestApp());
    const baseUrl = await listen(app);
    ({ integratorId } = await registerIntegrator(app, baseUrl));
    env = { HERALD_URL: baseUrl, HERALD_ADMIN_TOKEN: ADMIN_TOKEN };
    dir = await mkdtemp(join(tmpdir(), 'herald-cli-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
    await closeTestApp(app);
  });

  it('publishes one JSON object from a file, then reports it as existing', async () => {
    const event = sampleEvent(integratorId);
    const file = join(dir, 'one.json');
    await writeFile(file, JSON.stringify(event, null, 2));
    assert.deepEqual(await run([file], env), { code: 0, stdout: `created ${event.id as string}\n`, stderr: '' });
    assert.deepEqual(await run([file], env), { code: 0, stdout: `exists ${event.id as string}\n`, stderr: '' });
    assert.ok(await app.store.events.findById(event.id as string));
  });

  it('publishes a JSON array from stdin in input order', async () => {
    const events = Array.from({ length: 20 }, () => sampleEvent(integratorId));
    const res = await run(['-'], env, JSON.stringify(events));
    assert.equal(res.code, 0);
    assert.equal(res.stdout, events.map((e) => `created ${e.id as string}\n`).join(''));
  });

  it('publishes NDJSON, reports each failure by id or line, and exits 1', async () => {
    const ok = sampleEvent(integratorId);
    const conflicting = sampleEvent(integratorId);
    await run(['-'], env, JSON.stringify(conflicting));
    const invalid = sampleEvent(integratorId, { eventType: 'webhook.test' });
    const lines = [
      JSON.stringify(ok),
      '',
      '{not json',
      JSON.stringify({ ...conflicting, livemode: true }),
      JSON.stringify(invalid),
      '42',
      JSON.stringify({ eventType: 'customer.created' }),
    ];
    const res = await run(['-'], env, `${lines.join('\n')}\n`);
    assert.equal(res.code, 1);
    const out = res.stdout.trimEnd().split('\n');
    assert.equal(out.length, 6);
    assert.equal(out[0], `created ${ok.id as string}`);
    assert.match(out[1]!, /^error line 3: not JSON: /);
    assert.match(out[2]!, new RegExp(`^error ${conflicting.id as string}: 409 conflict: `));
    assert.match(out[3]!, new RegExp(`^error ${invalid.id as string}: 400 invalid_request: body\\.eventType: `));
    assert.equal(out[4], 'error line 6: an event must be a JSON object');
    assert.match(out[5]!, /^error line 7: 400 invalid_request: body\.id: /);
  });

  it('sends each event as written, so data keeps every digit; refuses input that is not UTF-8', async () => {
    const data = '{"id":123456789012345678901234567890,"z":-0,"2":1,"1":0.10}';
    const asText = (e: Record<string, unknown>) => `${JSON.stringify({ ...e, data: null }).slice(0, -5)}${data}}`;
    const [a, b, c] = [sampleEvent(integratorId), sampleEvent(integratorId), sampleEvent(integratorId)];
    assert.equal((await run(['-'], env, `[${asText(a)},\n ${asText(b)}]`)).code, 0);
    assert.equal((await run(['-'], env, `${asText(c)}\n`)).code, 0);
    for (const e of [a, b, c]) {
      const stored = await app.store.events.findById(e.id as string);
      assert.ok(stored?.body.endsWith(`,"data":${data}}`), stored?.body);
    }
    const latin1 = Buffer.from(JSON.stringify(sampleEvent(integratorId, { data: 'café' })), 'latin1');
    const res = await eventsPublishCommand.run(['-'], {
      stdin: Readable.from([latin1]),
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      env,
    });
    assert.equal(res, 2);
  });

  it('refuses misuse with exit 2: no argument, no token, unreadable file, unreachable server', async () => {
    assert.equal((await run([], env)).code, 2);
    assert.equal((await run(['a', 'b'], env)).code, 2);
    const noToken = await run(['-'], { HERALD_URL: env.HERALD_URL }, '{}');
    assert.equal(noToken.code, 2);
    assert.match(noToken.stderr, /HERALD_ADMIN_TOKEN/);
    const missing = await run([join(dir, 'nope.json')], env);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read/);
    const event = sampleEvent(integratorId);
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((r) => closed.close(r));
    const down = await run(['-'], { ...env, HERALD_URL: deadUrl }, JSON.stringify(event));
    assert.equal(down.code, 1);
    assert.match(down.stdout, new RegExp(`^error ${event.id as string}: cannot reach ${deadUrl}: ECONNREFUSED\\n$`));
    const wrongToken = await run(
      ['-'],
      { ...env, HERALD_ADMIN_TOKEN: 'wrong-token-wrong-token' },
      JSON.stringify(event),
    );
    assert.match(wrongToken.stdout, /: 401 unauthorized\n$/);
  });

  it('parses the three input forms', () => {
    assert.deepEqual(parseEvents(' {"id":"a"}\n'), [{ label: 'a', event: { id: 'a' }, text: '{"id":"a"}' }]);
    assert.deepEqual(parseEvents('[{"id":"a"}, {"n":1.0}]'), [
      { label: 'a', event: { id: 'a' }, text: '{"id":"a"}' },
      { label: 'item 2', event: { n: 1 }, text: '{"n":1.0}' },
    ]);
    assert.deepEqual(parseEvents('{"id":"a"}\r\n\n{"x":1E2}\n'), [
      { label: 'a', event: { id: 'a' }, text: '{"id":"a"}' },
      { label: 'line 3', event: { x: 100 }, text: '{"x":1E2}' },
    ]);
    assert.deepEqual(parseEvents(''), []);
  });
});
