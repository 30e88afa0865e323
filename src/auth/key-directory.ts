import type { IntegratorKeyDoc } from '../store/integrators-repo.js';

/** Where the directory reads keys: every active one, and those registered or revoked since a moment. */
export interface KeySource {
  activeKeys(): Promise<IntegratorKeyDoc[]>;
  keysChangedSince(since: Date): Promise<IntegratorKeyDoc[]>;
}

export interface KeyRecord {
  readonly keyId: string;
  readonly integratorId: string;
}

export interface KeyDirectoryOptions {
  /** Background refresh period: how long a revocation through another instance takes to reach this one. */
  refreshMs?: number;
  /** Refreshes asked for by requests start at most this often; every caller waiting shares one. */
  minGapMs?: number;
  /**
   * A refresh reads keys changed since the previous one began less this much: other instances stamp what they write
   * with their own clocks, so their clocks must be within about this much of this one's (less the refresh period).
   */
  overlapMs?: number;
  /** Every this often a refresh reads every active key again instead of the changes. */
  fullReloadMs?: number;
  /** Without a successful refresh for this long the directory is not trusted: `get` waits for one first. */
  maxStaleMs?: number;
  now?: () => number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Every active integrator key, in memory: a key in use is found without a database round trip, and a key that is not
 * here costs no query of its own — a request signed by it waits for the next refresh (shared by every request
 * waiting, at most one per `minGapMs`), which finds a key registered anywhere before the request arrived. So a flood
 * of random keys costs at most a few small queries a second, and never holds back a key that exists.
 */
export function createKeyDirectory(source: KeySource, opts: KeyDirectoryOptions = {}) {
  const now = opts.now ?? Date.now;
  const minGap = opts.minGapMs ?? 250;
  const overlap = opts.overlapMs ?? 5 * 60_000;
  const fullReload = opts.fullReloadMs ?? 10 * 60_000;
  const maxStale = opts.maxStaleMs ?? 30_000;
  let entries = new Map<string, KeyRecord>();
  let loadedAt: number | undefined; // start of the last full reload that succeeded
  let refreshedAt: number | undefined; // start of the last refresh that succeeded
  let lastStart = Number.NEGATIVE_INFINITY;
  let current: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  // Keys registered or revoked through this instance, until a refresh begun after the change has read it: a refresh
  // begun before it must neither bring a revoked key back nor drop a registered one.
  const local = new Map<string, { doc: IntegratorKeyDoc; at: number }>();

  const isFresh = (): boolean => refreshedAt !== undefined && now() - refreshedAt < maxStale;

  const put = (into: Map<string, KeyRecord>, doc: IntegratorKeyDoc): void => {
    if (doc.revokedAt === null) into.set(doc.publicKey, { keyId: doc._id, integratorId: doc.integratorId });
    else into.delete(doc.publicKey);
  };

  async function runOnce(): Promise<void> {
    const startedAt = now();
    lastStart = startedAt;
    if (loadedAt === undefined || refreshedAt === undefined || startedAt - loadedAt >= fullReload) {
      const docs = await source.activeKeys();
      const fresh = new Map<string, KeyRecord>();
      for (const doc of docs) put(fresh, doc);
      entries = fresh;
      loadedAt = startedAt;
    } else {
      for (const doc of await source.keysChangedSince(new Date(refreshedAt - overlap))) put(entries, doc);
    }
    refreshedAt = startedAt;
    for (const [publicKey, change] of local)
      if (change.at < startedAt) local.delete(publicKey);
      else put(entries, change.doc); // changed here while this refresh ran: it may have read the key before
  }

  /** A refresh that begins after this call; concurrent callers share it. Rejects when the database does. */
  function refresh(): Promise<void> {
    next ??= (async () => {
      await current?.catch(() => undefined);
      const wait = lastStart + minGap - now();
      if (wait > 0) await sleep(wait);
      next = undefined;
      if (stopped) throw new Error('the key directory is stopped');
      const run = runOnce();
      current = run;
      try {
        await run;
      } finally {
        if (current === run) current = undefined;
      }
    })();
    return next;
  }

  return {
    refresh,
    /** The key's record if it was active at the last refresh (or registered through this instance since). */
    lookup: (publicKey: string): KeyRecord | undefined => entries.get(publicKey),
    /** Resolves once the directory is recent enough to answer from: at once, or after the refresh in flight or a new one. */
    async ensureFresh(): Promise<void> {
      if (isFresh()) return;
      await current?.catch(() => undefined);
      if (!isFresh()) await refresh();
    },
    isFresh,
    /** A key registered or revoked through this instance: in or out at once, whatever a refresh under way read. */
    changedHere(doc: IntegratorKeyDoc): void {
      put(entries, doc);
      local.set(doc.publicKey, { doc, at: now() });
    },
    /** Loads every active key (errors are left to the next refresh), then refreshes every `refreshMs`. */
    start(onError: (err: unknown) => void): void {
      const tick = () => void refresh().catch((err: unknown) => stopped || onError(err));
      tick();
      timer = setInterval(tick, opts.refreshMs ?? 5_000);
      timer.unref();
    },
    stop(): void {
      stopped = true;
      if (timer) clearInterval(timer);
    },
  };
}

export type KeyDirectory = ReturnType<typeof createKeyDirectory>;
