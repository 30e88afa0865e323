import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';

/** Lower-case names without a trailing dot → their addresses, in file order. */
export type HostsMap = ReadonlyMap<string, readonly string[]>;

/** The entries of a hosts(5) file: `address name [alias…]` per line, `#` to the end of a line a comment. */
export function parseHostsFile(text: string): HostsMap {
  const map = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    // Zoned addresses (fe80::1%lo) fail isIP: a callback host could not use them anyway.
    if (!address || isIP(address) === 0) continue;
    for (const raw of names) {
      const name = raw.toLowerCase().replace(/\.$/, '');
      const addresses = map.get(name) ?? [];
      if (!addresses.includes(address)) addresses.push(address);
      map.set(name, addresses);
    }
  }
  return map;
}

/**
 * Read once, when the resolver is made: c-ares' resolve* never reads it, getaddrinfo did, and names such as
 * `localhost` must keep resolving as every other client on the host sees them. A missing file is an empty one.
 */
export function readHostsFile(path: string): HostsMap {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return new Map();
  }
  return parseHostsFile(text);
}
