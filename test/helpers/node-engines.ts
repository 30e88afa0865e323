// package.json's `engines.node`, read as the comparators it is written with (`>=20.19.0 <25`). A range written any
// other way throws here, so the tests that rely on it change with it.
import { readFileSync } from 'node:fs';

type Version = readonly [number, number, number];

function parse(text: string): Version {
  const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(text.replace(/^v/, ''));
  if (!m) throw new Error(`not a Node version: ${text}`);
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

export function declaredNodeRange(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    engines?: { node?: string };
  };
  if (!pkg.engines?.node) throw new Error('package.json declares no engines.node');
  return pkg.engines.node;
}

/** Whether `version` (`24.11.1`, `v20.19.0`) is within `range`: space-separated `>=X.Y.Z` and `<X.Y.Z` only. */
export function satisfiesNodeRange(version: string, range = declaredNodeRange()): boolean {
  const v = parse(version);
  return range
    .trim()
    .split(/\s+/)
    .every((comparator) => {
      const m = /^(>=|<)(.+)$/.exec(comparator);
      if (!m) throw new Error(`engines.node "${range}": only >= and < comparators are read here, not ${comparator}`);
      const c = compare(v, parse(m[2]!));
      return m[1] === '>=' ? c >= 0 : c < 0;
    });
}
