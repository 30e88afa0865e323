/** The log lines refused credentials make; `log` is called with pino's (object, message) order. */
export interface FailureLogOptions {
  readonly log: (fields: Record<string, unknown>, message: string) => void;
  /** Length of one window: its first failure is logged at once, the rest as one line when it ends. */
  readonly windowMs?: number;
  readonly now?: () => number;
}

/**
 * Refused credentials, logged at a bounded rate: the first failure of a window as one `unauthorized` line with its
 * cause (what a developer with a wrong signature looks for), every other one of that window counted by reason and
 * written as one `unauthorized (more)` line when the window ends. A flood of junk credentials (1,000 a second) costs
 * a counter increment each, not a log line each.
 */
export function createFailureLog(opts: FailureLogOptions) {
  const windowMs = opts.windowMs ?? 10_000;
  const now = opts.now ?? Date.now;
  let windowStart = -Infinity;
  let more = 0;
  let reasons: Record<string, number> = {};
  let timer: NodeJS.Timeout | undefined;

  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (more > 0) opts.log({ count: more, reasons, windowMs }, 'unauthorized (more)');
    more = 0;
    reasons = {};
  };

  return {
    /** One refused credential: `reason` is its metric label, `cause` the words for the log. */
    record(reason: string, cause: string): void {
      const t = now();
      if (t - windowStart >= windowMs) {
        flush();
        windowStart = t;
        opts.log({ cause }, 'unauthorized');
        return;
      }
      more += 1;
      reasons[reason] = (reasons[reason] ?? 0) + 1;
      // A window's count is written when it ends even if no failure follows to start the next one.
      timer ??= setTimeout(flush, windowStart + windowMs - t).unref();
    },
    /** Writes what the current window has counted (at shutdown). */
    flush,
  };
}

export type FailureLog = ReturnType<typeof createFailureLog>;
