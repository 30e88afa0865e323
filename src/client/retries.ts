import { setTimeout as sleep } from 'node:timers/promises';

/** An answer worth sending the request again for: Herald's failure, a rate limit, or a key another try still holds. */
export const retryable = (res: Response): boolean =>
  res.status >= 500 || res.status === 429 || (res.status === 409 && res.headers.has('retry-after'));

/** Retry-After (whole seconds, up to 10) when given, else 0.5 s × 2^retry up to 8 s, with 50–100 % jitter. */
export function retryDelayMs(retryAfter: string | null, retry: number): number {
  const asked = retryAfter === null ? Number.NaN : Number(retryAfter);
  if (Number.isFinite(asked) && asked >= 0) return Math.min(asked, 10) * 1000;
  return Math.min(8_000, 500 * 2 ** retry) * (0.5 + Math.random() / 2);
}

/**
 * Calls `send` until it answers something not `retryable`, at most `maxRetries` times more: after a network error
 * (thrown) or such an answer, waits `retryDelayMs` first. The last answer (or error) stands.
 */
export async function withRetries(send: () => Promise<Response>, maxRetries: number): Promise<Response> {
  for (let retry = 0; ; retry += 1) {
    let res: Response;
    try {
      res = await send();
    } catch (err) {
      if (retry >= maxRetries) throw err;
      await sleep(retryDelayMs(null, retry));
      continue;
    }
    if (retry >= maxRetries || !retryable(res)) return res;
    await res.arrayBuffer();
    await sleep(retryDelayMs(res.headers.get('retry-after'), retry));
  }
}
