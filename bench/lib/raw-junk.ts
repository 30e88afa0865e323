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
  let inFlight = 0;
  let drained: (() => void) | undefined;

  const write = (c: Connection, request: Buffer): void => {
    c.busy = true;
    inFlight += 1;
    c.socket.write(request);
  };
  const answered = (c: Connection, status: string): void => {
    c.busy = false;
    inFlight -= 1;
    statuses[status] = (statuses[status] ?? 0) + 1;
    const next = queue.shift();
    if (next && !c.socket.destroyed) write(c, next);
    else if (!c.socket.destroyed) free.push(c);
    if (inFlight === 0 && queue.length === 0) drained?.();
  };

  const opened = await Promise.all(
    Array.from(
      { length: connections },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect({ host, port, noDelay: true }, () => resolve(socket));
          socket.once('error', reject);
        }),
    ),
  );
  for (const socket of opened) {
    const c: Connection = { socket, busy: false };
    socket.on(
      'data',
      answerReader((status) => answered(c, status)),
    );
    socket.on('close', () => c.busy && answered(c, 'error'));
    socket.on('error', () => undefined);
    free.push(c);
  }
  return {
    send(request) {
      const c = free.pop();
      if (c) write(c, request);
      else queue.push(request);
    },
    drain: () =>
      inFlight === 0 && queue.length === 0 ? Promise.resolve() : new Promise<void>((resolve) => (drained = resolve)),
    statuses,
    close: () => opened.forEach((s) => s.destroy()),
  };
}
