/** What one item of a coalesced command came to: its value, or the error that is its own. */
export type ItemResult<O> = { ok: true; value: O } | { ok: false; error: unknown };

export interface CoalesceOptions {
  /** Commands in flight at once; a call made while they all run waits and leaves with every call queued meanwhile. */
  maxInFlight: number;
  /** Items one command carries at most (the server's limit on what one command does well). */
  maxItems: number;
}

/**
 * Group commit for a repository's hot command (docs/deliveries.md, "Database round trips"): concurrent calls
 * share one command. A call made while fewer than `maxInFlight` commands run goes on the next turn of the event loop,
 * with the calls of the same turn, so an idle process waits for nothing more; under load the calls that arrive while
 * the commands run leave together when one ends. Each item settles with its own result (`run` answers one per item, in
 * order), or with the command's error if it failed whole.
 * Batching changes no write's meaning: `run` writes each item as one call alone would (unordered, idempotent per
 * item), so a crash mid-command leaves each item written or not, exactly as with one command each.
 */
export function coalesce<I, O>(
  run: (items: I[]) => Promise<ItemResult<O>[]>,
  options: CoalesceOptions,
): (item: I) => Promise<O> {
  type Waiting = { item: I; resolve: (value: O) => void; reject: (error: unknown) => void };
  const queue: Waiting[] = [];
  let inFlight = 0;
  let scheduled = false;

  const pump = (): void => {
    scheduled = false;
    while (inFlight < options.maxInFlight && queue.length > 0) send(queue.splice(0, options.maxItems));
  };
  const send = (batch: Waiting[]): void => {
    inFlight++;
    void run(batch.map((w) => w.item))
      .then(
        (results) => {
          batch.forEach((w, i) => {
            const r = results[i];
            if (!r) w.reject(new Error('a coalesced command answered fewer results than items'));
            else if (r.ok) w.resolve(r.value);
            else w.reject(r.error);
          });
        },
        (error: unknown) => batch.forEach((w) => w.reject(error)),
      )
      .finally(() => {
        inFlight--;
        pump();
      });
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!scheduled && inFlight < options.maxInFlight) {
        scheduled = true;
        setImmediate(pump);
      }
    });
}
