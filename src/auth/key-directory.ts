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
  /** A refresh reads keys changed since the previous one began less this much (other instances' clocks, commit lag). */
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
  const overlap = opts.overlapMs ?? 60_000;
  const fullReload = opts.fullReloadMs ?? 10 * 60_000;
  const maxStale = opts.maxStaleMs ?? 30_000;
  const entries = new Map<string, KeyRecord>();
  let loadedAt: number | undefined; // start of the last full reload that succeeded
  let refreshedAt: number | undefined; // start of the last refresh that succeeded
  let lastStart = Number.NEGATIVE_INFINITY;
  let current: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  // Keys revoked through this instance, until a refresh begun after the revocation has read it: a reload begun before
  // it must not bring such a key back.
  const revokedHere = new Map<string, number>();

  const isFresh = (): boolean => refreshedAt !== undefined && now() - refreshedAt < maxStale;

  const apply = (doc: IntegratorKeyDoc): void => {
    if (doc.revokedAt === null && !revokedHere.has(doc.publicKey))
      entries.set(doc.publicKey, { keyId: doc._id, integratorId: doc.integratorId });
    else entries.delete(doc.publicKey);
  };

  async function runOnce(): Promise<void> {
    const startedAt = now();
    lastStart = startedAt;
    if (loadedAt === undefined || refreshedAt === undefined || startedAt - loadedAt >= fullReload) {
      const docs = await source.activeKeys();
      entries.clear();
      for (const doc of docs) apply(doc);
      loadedAt = startedAt;
    } else {
      for (const doc of await source.keysChangedSince(new Date(refreshedAt - overlap))) apply(doc);
    }
    refreshedAt = startedAt;
    for (const [publicKey, at] of revokedHere) if (at < startedAt) revokedHere.delete(publicKey);
  }

  /** A refresh that begins after this call; concurrent callers share it. Rejects when the database does. */
  function refresh(): Promise<void> {
    next ??= (async () => {
      await current?.catch(() => undefined);
      const wait = lastStart + minGap - now();
      if (wait > 0) await sleep(wait);
      next = undefined;
      current = runOnce();
      try {
        await current;
      } finally {
        current = undefined;
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
    /** Adds or takes out one key at once (registered or revoked through this instance). */
    apply,
    /** Takes a key out at once (revoked through this instance). */
    remove(publicKey: string): void {
      entries.delete(publicKey);
      revokedHere.set(publicKey, now());
    },
    /** Loads every active key (errors are left to the next refresh), then refreshes every `refreshMs`. */
    start(onError: (err: unknown) => void): void {
      const tick = () => void refresh().catch(onError);
      tick();
      timer = setInterval(tick, opts.refreshMs ?? 5_000);
      timer.unref();
    },
    stop(): void {
      if (timer) clearInterval(timer);
    },
    get size(): number {
      return entries.size;
    },
  };
}

export type KeyDirectory = ReturnType<typeof createKeyDirectory>;
