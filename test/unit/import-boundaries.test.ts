// The edges of the house that the compiler does not see: routes reach delivery's lifecycle through the delivery
// service and data through the repositories, the activities reach workflows only through the service's port, the
// lower layers import nothing from the higher ones, and the process wiring stays in its folder (README "Layout").
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Every module a file imports (static and type imports, re-exports), as written. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1]!);
}

/** The repository path a relative import of `file` names (without extension). */
const target = (file: string, spec: string) => relative(root, join(root, file, '..', spec)).replace(/\.(js|ts)$/, '');

/** `file: import` for every import of the files under `dir` that `bad` refuses. */
function offending(dir: string, bad: (target: string) => boolean): string[] {
  return sources(dir).flatMap((file) =>
    importsOf(file)
      .filter((spec) => spec.startsWith('.') && bad(target(file, spec)))
      .map((spec) => `${file}: ${spec}`),
  );
}

describe('import boundaries', () => {
  it('routes use the delivery service (through its index) and the repositories, never raw collections', () => {
    assert.deepEqual(
      offending('src/api/routes', (t) => t.startsWith('src/delivery/') && t !== 'src/delivery/index'),
      [],
    );
    const raw = /\.collection\b|\bdb\.|temporal\.client|TEMPORAL_TASK_QUEUE/;
    const found = sources('src/api/routes').filter((file) => raw.test(readFileSync(join(root, file), 'utf8')));
    assert.deepEqual(found, []);
  });

  it('activities import nothing that starts workflows: they are handed the delivery service', () => {
    assert.deepEqual(
      offending('activities', (t) => t.startsWith('src/delivery')),
      [],
    );
    const clients = sources('activities').filter((file) => importsOf(file).includes('@temporalio/client'));
    assert.deepEqual(clients, []);
  });

  it('the store imports nothing of the API, and the domain nothing but itself', () => {
    assert.deepEqual(
      offending('src/store', (t) => t.startsWith('src/api/')),
      [],
    );
    assert.deepEqual(
      offending('src/domain', (t) => !t.startsWith('src/domain/')),
      [],
    );
  });

  it('keeps in src/ itself only the package entry and the configuration; the processes live in src/process', () => {
    const loose = readdirSync(join(root, 'src')).filter((name) => name.endsWith('.ts'));
    // The configuration is config.ts and its parts, config-<part>.ts (the trust-proxy and DNS-server settings).
    const other = loose.filter((name) => !/^config(-[a-z]+(-[a-z]+)*)?\.ts$/.test(name));
    assert.deepEqual(other, ['index.ts']);
    assert.ok(loose.includes('config.ts'));
    assert.deepEqual(
      offending('src', (t) => t.startsWith('src/process/')).filter((line) => !line.startsWith('src/process/')),
      [],
    );
  });

  it("names the activities' permanent failure in one place", () => {
    const named = [...sources('activities'), ...sources('workflows'), ...sources('src')].filter((file) =>
      readFileSync(join(root, file), 'utf8').includes("'DeliveryNotFound'"),
    );
    assert.deepEqual(named, ['workflows/messages.ts']);
  });
});
