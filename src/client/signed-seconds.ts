import { createHash } from 'node:crypto';

/**
 * The server accepts a signed message once, and a message is its timestamp (whole seconds), method, target and body:
 * this remembers what was signed in the current second and answers, for a request, a second it was not signed in
 * yet (waiting for the next second when it was).
 */
export function createSignedSeconds() {
  let second = 0;
  let signedThisSecond = new Set<string>();
  return {
    async timestampFor(method: string, target: string, body?: Buffer): Promise<string> {
      const digest = createHash('sha256')
        .update(`${method} ${target}\n`)
        .update(body ?? '')
        .digest('base64');
      for (;;) {
        const now = Date.now();
        const current = Math.floor(now / 1000);
        if (current !== second) {
          second = current;
          signedThisSecond = new Set();
        }
        if (!signedThisSecond.has(digest)) {
          signedThisSecond.add(digest);
          return String(current);
        }
        await new Promise((r) => setTimeout(r, 1000 - (now % 1000) + 1));
      }
    },
  };
}
