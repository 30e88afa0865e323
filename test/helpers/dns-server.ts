import { createSocket } from 'node:dgram';
import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

const TYPE_A = 1;
const TYPE_AAAA = 28;
const NXDOMAIN = 3;

export interface DnsQuestion {
  readonly name: string;
  /** 'A', 'AAAA' or the numeric type of anything else. */
  readonly type: string;
}

export interface TestDnsServerOptions {
  /** Lower-case names without a trailing dot → addresses (IPv4 and IPv6 alike); any other name is NXDOMAIN. */
  records?: Readonly<Record<string, readonly string[]>>;
  /** TTL (seconds) of every answer unless `set` gives one. */
  ttl?: number;
  /** Names equal to or under this suffix are not answered, as by a zone whose servers stall. */
  stalledZone?: string;
  /** Answer the stalled zone after this delay instead of never (as NXDOMAIN unless `records` has the name). */
  stallMs?: number;
}

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, as HERALD_DNS_SERVERS and Resolver#setServers take it. */
  readonly address: string;
  /** Every question received, in arrival order. */
  readonly questions: DnsQuestion[];
  /** Questions received for `name` (any type). */
  count(name: string): number;
  /** Sets (or replaces) the answer for `name`. */
  set(name: string, addresses: readonly string[], ttl?: number): void;
  close(): Promise<void>;
}

/** The question of a query: labels from offset 12, then type. Null when the packet is not a one-question query. */
function parseQuestion(packet: Buffer): { name: string; type: number; end: number } | null {
  if (packet.length < 12 || packet.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let at = 12;
  for (let length = packet[at] ?? 0; length > 0; length = packet[at] ?? 0) {
    if (length > 63 || at + 1 + length > packet.length) return null;
    labels.push(packet.toString('latin1', at + 1, at + 1 + length));
    at += 1 + length;
  }
  if (at + 5 > packet.length) return null;
  return { name: labels.join('.').toLowerCase(), type: packet.readUInt16BE(at + 1), end: at + 5 };
}

/** The answer to `query`: its question echoed, then one record per address of the asked family. */
function answer(query: Buffer, end: number, rcode: number, addresses: readonly string[], ttl: number): Buffer {
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  const rd = (query[2] ?? 0) & 0x01;
  header.writeUInt16BE(0x8000 | 0x0400 | (rd << 8) | 0x0080 | rcode, 2); // QR, AA, RD echoed, RA, rcode
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const records = addresses.map((address) => {
    const rdata = Buffer.from(ipaddr.parse(address).toByteArray());
    const fixed = Buffer.alloc(12);
    fixed.writeUInt16BE(0xc00c, 0); // a pointer to the question's name
    fixed.writeUInt16BE(rdata.length === 4 ? TYPE_A : TYPE_AAAA, 2);
    fixed.writeUInt16BE(1, 4); // IN
    fixed.writeUInt32BE(ttl, 6);
    fixed.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([fixed, rdata]);
  });
  return Buffer.concat([header, query.subarray(12, end), ...records]);
}

/**
 * A tiny authoritative DNS server on 127.0.0.1 (UDP) answering A and AAAA from a map, with one zone that stalls:
 * what a real integrator's slow zone does to a resolver, without the network.
 */
export async function startDnsServer(options: TestDnsServerOptions = {}): Promise<TestDnsServer> {
  const { ttl: defaultTtl = 60, stalledZone, stallMs } = options;
  const records = new Map<string, { addresses: readonly string[]; ttl: number }>();
  for (const [name, addresses] of Object.entries(options.records ?? {}))
    records.set(name, { addresses, ttl: defaultTtl });
  const questions: DnsQuestion[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const socket = createSocket('udp4');
  const stalled = (name: string) =>
    stalledZone !== undefined && (name === stalledZone || name.endsWith(`.${stalledZone}`));

  socket.on('message', (packet, peer) => {
    const question = parseQuestion(packet);
    if (!question) return;
    const { name, type, end } = question;
    questions.push({ name, type: type === TYPE_A ? 'A' : type === TYPE_AAAA ? 'AAAA' : String(type) });
    const record = records.get(name);
    const family = type === TYPE_A ? isIPv4 : type === TYPE_AAAA ? isIPv6 : () => false;
    const reply = record
      ? answer(packet, end, 0, record.addresses.filter(family), record.ttl)
      : answer(packet, end, NXDOMAIN, [], defaultTtl);
    const send = () => socket.send(reply, peer.port, peer.address);
    if (!stalled(name)) send();
    else if (stallMs !== undefined) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        send();
      }, stallMs);
      timers.add(timer);
    }
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    questions,
    count: (name) => questions.filter((q) => q.name === name).length,
    set: (name, addresses, ttl = defaultTtl) => records.set(name, { addresses, ttl }),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}
