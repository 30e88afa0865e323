import { z } from 'zod';

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30d`, `12h`, `10m`, `90s`, `500ms` → milliseconds (a positive whole number of one unit). */
export function parseDurationMs(raw: string): number | null {
  const m = /^\s*(\d+)\s*(ms|s|m|h|d)\s*$/i.exec(raw);
  if (!m) return null;
  const ms = Number(m[1]) * UNIT_MS[m[2]!.toLowerCase()]!;
  return ms > 0 && Number.isSafeInteger(ms) ? ms : null;
}

/** A duration variable with a default, as milliseconds. */
export const durationMs = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((raw, ctx) => {
      const ms = parseDurationMs(raw);
      if (ms !== null) return ms;
      ctx.addIssue({ code: 'custom', message: `expected a duration such as 30d, 12h, 10m or 90s, got "${raw}"` });
      return z.NEVER;
    });

/** The shortest HERALD_RETENTION production accepts; shorter ones serve tests and benchmarks. */
export const MIN_PRODUCTION_RETENTION_MS = UNIT_MS.d!;

/** Why a parsed configuration's retention is refused, or null. */
export function retentionProblem(c: { NODE_ENV: string; HERALD_RETENTION: number }): string | null {
  if (c.NODE_ENV !== 'production' || c.HERALD_RETENTION >= MIN_PRODUCTION_RETENTION_MS) return null;
  return 'HERALD_RETENTION: under 1d is refused with NODE_ENV=production (shorter values serve tests and benchmarks)';
}
