/** The q-quantile (0–1) of `values`, nearest-rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

export const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

/** Runs `task(i)` for i < count with at most `inFlight` at once; resolves when all are done. */
export async function pool(count: number, inFlight: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(inFlight, count) }, async () => {
    while (next < count) await task(next++);
  });
  await Promise.all(lanes);
}

/** Reads `--name value` flags as numbers, with defaults. */
export function numberFlags<T extends Record<string, number>>(defaults: T, argv = process.argv.slice(2)): T {
  const out: Record<string, number> = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i]?.replace(/^--/, '');
    if (key && key in out && argv[i + 1] !== undefined) out[key] = Number(argv[++i]);
  }
  return out as T;
}
