// The junk sender of `npm run bench -- auth junk` (bench/lib/auth-load.ts): requests written as prepared bytes on
// plain keep-alive sockets, one in flight per socket as an HTTP client would, and their answers only counted. An
// HTTP client library spends more CPU per request than the server does to refuse it; on a machine of two cores that
// CPU would be taken from the server and the valid clients the bench measures.
import { connect, type Socket } from 'node:net';

const HEAD_END = Buffer.from('\r\n\r\n');

/** Reads answers off one socket: the status of each, its body skipped by Content-Length. */
function answerReader(onAnswer: (status: string) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      const end = pending.indexOf(HEAD_END);
      if (end < 0) return;
      const head = pending.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      const total = end + HEAD_END.length + length;
      if (pending.length < total) return;
      onAnswer(head.slice(9, 12)); // "HTTP/1.1 401 …"
      pending = pending.subarray(total);
    }
  };
}

export interface RawJunk {
  /** Writes one prepared request on a free connection, or queues it until one is free. */
  send(request: Buffer): void;
  /** Resolves once every request sent has been answered (or its connection closed). */
  drain(): Promise<void>;
  readonly statuses: Record<string, number>;
  close(): void;
}

interface Connection {
  readonly socket: Socket;
  busy: boolean;
}

export async function openRawJunk(host: string, port: number, connections: number): Promise<RawJunk> {
  const statuses: Record<string, number> = {};
  const free: Connection[] = [];
  const queue: Buffer[] = [];
  const open = new Set<Socket>();
  let closing = false;
  let inFlight = 0;
  let drained: (() => void) | undefined;

  const write = (c: Connection, request: Buffer): void => {
    c.busy = true;
    inFlight += 1;
    c.socket.write(request);
  };
  const ready = (c: Connection): void => {
    const next = queue.shift();
    if (next) write(c, next);
    else free.push(c);
  };
  const answered = (c: Connection | undefined, status: string): void => {
    inFlight -= 1;
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (c) ready(c);
    if (inFlight === 0 && queue.length === 0) drained?.();
  };
  // A connection the server closes (an idle keep-alive one, say) is replaced; a request on it counts as `error`.
  const connectOne = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const socket = connect({ host, port, noDelay: true });
      const c: Connection = { socket, busy: false };
      socket.once('connect', () => {
        open.add(socket);
        ready(c);
        resolve();
      });
      socket.on(
        'data',
        answerReader((status) => {
          // An answer to no request (the server's 408 to a connection it takes for one with a request pending):
          // counted by its status, apart from the answers to requests sent.
          if (!c.busy) {
            const key = `unsolicited ${status}`;
            statuses[key] = (statuses[key] ?? 0) + 1;
            return;
          }
          c.busy = false;
          answered(c, status);
        }),
      );
      socket.on('error', reject);
      socket.on('close', () => {
        open.delete(socket);
        const i = free.indexOf(c);
        if (i >= 0) free.splice(i, 1);
        if (c.busy) answered(undefined, 'error');
        if (!closing) void connectOne().catch(() => undefined);
      });
    });

  await Promise.all(Array.from({ length: connections }, connectOne));
  return {
    send(request) {
      const c = free.pop();
      if (c) write(c, request);
      else queue.push(request);
    },
    drain: () =>
      inFlight === 0 && queue.length === 0 ? Promise.resolve() : new Promise<void>((resolve) => (drained = resolve)),
    statuses,
    close: () => {
      closing = true;
      for (const socket of open) socket.destroy();
    },
  };
}
