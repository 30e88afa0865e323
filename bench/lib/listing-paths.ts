import type { KeyObject } from 'node:crypto';
import { requestSigningInput, signRequest } from '../../src/crypto/request-signature.js';

/**
 * The same listing request under a distinct target for every `n` (the server accepts a signed message once, and the
 * listings' query schemas admit no spare parameter): characters of the query string percent-encoded by the bits of
 * `n`, then as many empty `&` pairs as the rest of `n` asks. The server decodes every variant to the same query.
 */
export function uniquePath(path: string, n: number): string {
  const [base, query = ''] = path.split('?');
  const encodable = [...query].map((ch, i) => ({ ch, i })).filter(({ ch }) => ch !== '=' && ch !== '&');
  const bits = Math.min(encodable.length, 12);
  const chars = [...query];
  for (let b = 0; b < bits; b++) {
    if ((n >> b) & 1) {
      const { ch, i } = encodable[b]!;
      chars[i] = `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return `${base}?${chars.join('')}${'&'.repeat(Math.floor(n / 2 ** bits))}`;
}

/** One signed GET of `path` (fresh timestamp); the parsed JSON body, or a thrown error on a non-2xx answer. */
export async function signedGet(baseUrl: string, who: { privateKey: KeyObject; pubkey: string }, path: string) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const res = await fetch(`${baseUrl}${path}`, {
    headers: {
      'x-pubkey': who.pubkey,
      'x-timestamp': timestamp,
      'x-signature': signRequest(who.privateKey, requestSigningInput(timestamp, 'GET', path)),
    },
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}
