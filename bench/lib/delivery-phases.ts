// Where the time of a delivery goes, measured in the bench's own process (API, worker and receiver share its clock):
// timestamps per event from thin wrappers around the repositories, the fan-out, the HTTP client and the activity,
// and the CPU the two local servers spent, read from /proc.
import { AsyncLocalStorage } from 'node:async_hooks';
import { readdirSync, readFileSync } from 'node:fs';
import { Context } from '@temporalio/activity';
import type { Activities } from '../../activities/index.js';
import type { FanOut } from '../../src/delivery/index.js';
import type { WebhookHttpClient } from '../../src/net/http-client.js';
import type { Store } from '../../src/store/index.js';
import { quantile, round } from './stats.js';

type Marks = Record<string, number>;

/**
 * Off until `record(true)`: the wrappers then only pass calls through, so that the throughput rounds measure Herald
 * and not this instrumentation (the bare baseline has none).
 */
export function createPhaseRecorder() {
  let on = false;
  const byEvent = new Map<string, Marks>();
  const current = new AsyncLocalStorage<Marks>();
  const marks = (eventId: string): Marks => byEvent.get(eventId) ?? byEvent.set(eventId, {}).get(eventId)!;
  const mark = (m: Marks | undefined, name: string): void => void (m && (m[name] = Date.now()));

  /** `fn` with `<name>0` / `<name>1` marks around each call, on the marks `of` its arguments name. */
  function around<A extends unknown[], R>(
    name: string,
    of: (...a: A) => Marks | undefined,
    fn: (...a: A) => Promise<R>,
  ) {
    const timed = async (...args: A): Promise<R> => {
      const m = of(...args);
      mark(m, `${name}0`);
      try {
        return await fn(...args);
      } finally {
        mark(m, `${name}1`);
      }
    };
    return (...args: A): Promise<R> => (on ? timed(...args) : fn(...args));
  }

  return {
    record: (recording: boolean) => void (on = recording),
    mark: (eventId: string, name: string) => void (on && mark(marks(eventId), name)),
    /** Times the API's hand-off (match, workflow starts) and event insert; mutates the app's objects in place. */
    instrumentApi(store: Store, fanOut: FanOut): void {
      const ofEvent = (...a: unknown[]) => marks((a[0] as { _id: string })._id);
      store.subscriptions.findMatching = around('match', ofEvent, store.subscriptions.findMatching);
      fanOut.handOff = around('handOff', ofEvent, fanOut.handOff);
      store.events.insertOnce = around('insert', ofEvent, store.events.insertOnce);
    },
    /** A worker store and HTTP client whose event read, POST and attempt record are timed. */
    instrumentWorker(store: Store, http: WebhookHttpClient): { store: Store; http: WebhookHttpClient } {
      const inActivity = (..._: unknown[]) => current.getStore();
      return {
        store: {
          ...store,
          events: { ...store.events, findById: around('read', inActivity, store.events.findById) },
          deliveries: {
            ...store.deliveries,
            recordAttempt: around('record', inActivity, store.deliveries.recordAttempt),
          },
        },
        http: { ...http, post: around('post', inActivity, http.post) },
      };
    },
    instrumentActivities(activities: Activities): Activities {
      return {
        ...activities,
        runAttempt: async (input) => {
          if (!on) return activities.runAttempt(input);
          const m = input.handOff ? marks(input.handOff.eventId) : {};
          m.scheduled = Context.current().info.currentAttemptScheduledTimestampMs;
          const timedAttempt = around('activity', (..._: unknown[]) => m, activities.runAttempt);
          return await current.run(m, () => timedAttempt(input));
        },
      };
    },
    /** p50 of each phase (ms) over `eventIds`, in the order a delivery goes through them. */
    summary(eventIds: readonly string[]): Record<string, number> {
      const phases: Record<string, (m: Marks) => number> = {
        'ingest request (client → response)': (m) => m.response! - m.sent!,
        '  match (subscription index read)': (m) => m.match1! - m.match0!,
        '  workflow start RPC': (m) => m.handOff1! - m.match1!,
        '  event insert': (m) => m.insert1! - m.insert0!,
        'start RPC → activity scheduled (first workflow task)': (m) => m.scheduled! - m.match1!,
        'activity schedule → start': (m) => m.activity0! - m.scheduled!,
        'read event': (m) => m.read1! - m.read0!,
        'sign + headers (key cached)': (m) => m.post0! - m.read1!,
        'POST (to the receiver, and its 204)': (m) => m.post1! - m.post0!,
        'record attempt': (m) => m.record1! - m.record0!,
        'ingest → receiver': (m) => m.arrived! - m.sent!,
      };
      const rows = eventIds.map((id) => byEvent.get(id) ?? {});
      return Object.fromEntries(
        Object.entries(phases).map(([name, f]) => [name, round(quantile(rows.map(f).filter(Number.isFinite), 0.5))]),
      );
    },
  };
}

/**
 * CPU seconds (user + system) so far of `pid` and its children (PostgreSQL: the postmaster and its backends), the
 * children it has reaped included (a backend whose connection closed), so that the figure never goes down.
 */
export function cpuSecondsOfTree(pid: number): number {
  let ticks = 0;
  for (const each of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const fields = readFileSync(`/proc/${each}/stat`, 'utf8').split(') ')[1]!.split(' ');
      if (Number(each) === pid) ticks += Number(fields[13]) + Number(fields[14]); // cutime, cstime: reaped children
      if (Number(each) === pid || Number(fields[1]) === pid) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks / 100;
}

/** CPU seconds (user + system) so far of the processes whose command line contains every one of `parts`. */
export function cpuSecondsOf(parts: readonly string[]): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (!parts.every((p) => cmdline.includes(p))) continue;
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks / 100;
}
