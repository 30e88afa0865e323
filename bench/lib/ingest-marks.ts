// Where an ingest request's time goes in the API (this process): the workflow start RPCs, the wait for a pooled
// connection before the event's insert is sent (driver command monitoring: the app must be built with
// `monitorCommands: true`), the insert on the server, and the listing write after it. The worker's first attempt
// can find its event only from "insert acknowledged" on.
import type { FastifyInstance } from 'fastify';
import type { CommandStartedEvent, CommandSucceededEvent } from 'mongodb';
import { quantile, round } from './stats.js';

type Marks = Record<string, number>;

export function ingestMarks(app: FastifyInstance) {
  const byEvent = new Map<string, Marks>();
  const mark = (id: string, name: string, at = Date.now()): void => {
    const m = byEvent.get(id) ?? byEvent.set(id, {}).get(id)!;
    m[name] = at;
  };
  const { fanOut } = app.deliveryService;
  const handOff = fanOut.handOff.bind(fanOut);
  fanOut.handOff = async (event, options) => {
    mark(event._id, 'startRpc0');
    try {
      return await handOff(event, options);
    } finally {
      mark(event._id, 'startRpc1');
    }
  };
  const inserts = new Map<number, string>();
  app.mongo.client.on('commandStarted', (e: CommandStartedEvent) => {
    const command = e.command as { insert?: string; documents?: { _id?: unknown }[] };
    const id = command.insert === 'events' ? command.documents?.[0]?._id : undefined;
    if (typeof id !== 'string') return;
    inserts.set(e.requestId, id);
    mark(id, 'insertSent');
  });
  app.mongo.client.on('commandSucceeded', (e: CommandSucceededEvent) => {
    const id = inserts.get(e.requestId);
    if (id === undefined) return;
    inserts.delete(e.requestId);
    mark(id, 'insertAck');
  });

  return {
    sent: (id: string, at: number) => mark(id, 'sent', at),
    answered: (id: string) => mark(id, 'answered'),
    /** p50 / p99 (ms) of each phase of the ingest request. */
    summary(): Record<string, { p50: number; p99: number }> {
      const phases: Record<string, (m: Marks) => number> = {
        request: (m) => m.answered! - m.sent!,
        sentToStartRpc: (m) => m.startRpc0! - m.sent!,
        startRpcs: (m) => m.startRpc1! - m.startRpc0!,
        startRpcToInsertSent: (m) => m.insertSent! - m.startRpc1!,
        insertOnServer: (m) => m.insertAck! - m.insertSent!,
        startRpcToInsertAck: (m) => m.insertAck! - m.startRpc1!,
        insertAckToAnswer: (m) => m.answered! - m.insertAck!,
      };
      const rows = [...byEvent.values()];
      return Object.fromEntries(
        Object.entries(phases).map(([name, f]) => {
          const values = rows.map(f).filter(Number.isFinite);
          return [name, { p50: round(quantile(values, 0.5)), p99: round(quantile(values, 0.99)) }];
        }),
      );
    },
  };
}
