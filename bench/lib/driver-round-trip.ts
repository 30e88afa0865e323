// Part (d) of bench/auth.ts: what one database round trip costs the API process, for the shared replay store's share
// of a request. Through the official driver (`ping`, a one-document unordered insertMany as the replay store sends
// it) beside the same `ping` written as raw OP_MSG bytes on a socket: the wire's own cost.
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { BSON, MongoClient } from 'mongodb';

const OPS = 2_000;
const WARM = 200;

/** CPU µs of this process per call of `fn`, run `OPS` times one after the other (after a warm-up). */
async function cpuPerCall(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < WARM; i++) await fn();
  const before = process.cpuUsage();
  for (let i = 0; i < OPS; i++) await fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / OPS;
}

/** One OP_MSG (opcode 2013) with a single body section. */
function opMsg(requestId: number, doc: Uint8Array): Buffer {
  const header = Buffer.alloc(21);
  header.writeInt32LE(21 + doc.length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(2013, 12);
  return Buffer.concat([header, doc]);
}

/** `ping` over a raw socket to host:port, reading each reply's 4-byte length before sending the next. */
async function rawPing(host: string, port: number): Promise<number> {
  const socket = connect({ host, port, noDelay: true });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const doc = BSON.serialize({ ping: 1, $db: 'admin' });
  let received = Buffer.alloc(0);
  let waiting: (() => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    if (received.length >= 4 && received.length >= received.readInt32LE(0)) {
      received = Buffer.alloc(0);
      waiting?.();
    }
  });
  let id = 1;
  const once = () => new Promise<void>((resolve) => ((waiting = resolve), socket.write(opMsg(id++, doc))));
  try {
    return await cpuPerCall(once);
  } finally {
    socket.destroy();
  }
}

export interface RoundTripFigures {
  driverPingUs: number;
  driverInsertUs: number;
  rawPingUs: number;
}

export async function measureRoundTrips(url: string): Promise<RoundTripFigures> {
  const client = new MongoClient(url);
  try {
    const db = client.db(`bench_rt_${randomBytes(4).toString('hex')}`);
    const replays = db.collection<{ _id: string; expiresAt: Date }>('replays');
    let n = 0;
    const driverPingUs = await cpuPerCall(() => db.command({ ping: 1 }));
    const driverInsertUs = await cpuPerCall(() =>
      replays.insertMany([{ _id: `d${n++}`, expiresAt: new Date() }], { ordered: false }),
    );
    const { host, port } = client.options.hosts[0] as { host: string; port: number };
    const rawPingUs = await rawPing(host, port);
    await db.dropDatabase();
    return { driverPingUs, driverInsertUs, rawPingUs };
  } finally {
    await client.close();
  }
}
