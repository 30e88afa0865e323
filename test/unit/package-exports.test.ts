// The package's public surface: the names src/index.ts exports, and package.json pointing at the files
// `npm run build` emits (computed from tsconfig.build.json, so a moved outDir or a dropped source fails here).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, relative } from 'node:path';
import ts from 'typescript';
import * as pkg from '../../src/index.js';
import * as receiver from '../../src/receiver/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, { types: string; default: string } | string>;
  types: string;
  bin: Record<string, string>;
};

/** tsconfig.build.json as tsc resolves it (extends included). */
function buildConfig(): ts.ParsedCommandLine {
  const file = join(root, 'tsconfig.build.json');
  const { config } = ts.readConfigFile(file, (f) => ts.sys.readFile(f));
  return ts.parseJsonConfigFileContent(config, ts.sys, root, undefined, file);
}

/** Where tsc writes the JS and declaration of a source file under this config. */
function emitted(source: string, options: ts.CompilerOptions): { js: string; dts: string } {
  const rel = relative(options.rootDir ?? root, join(root, source)).replace(/\.ts$/, '');
  const out = join(options.outDir ?? root, rel);
  return { js: `./${relative(root, `${out}.js`)}`, dts: `./${relative(root, `${out}.d.ts`)}` };
}

describe('package exports', () => {
  it('exports the clients, the error types and the receiver helper', () => {
    for (const name of ['HeraldClient', 'HeraldAdminClient', 'HeraldApiError', 'WebhookVerifier'] as const)
      assert.equal(typeof pkg[name], 'function', name);
    assert.ok(new pkg.WebhookVerificationError('invalid_signature', 'x') instanceof Error);
    assert.equal(new pkg.HeraldApiError(404, { error: 'not_found', status: 404 }).status, 404);
    assert.equal(pkg.WEBHOOK_ALGORITHM, 'ECDSA_P256_SHA256');
    assert.equal(typeof pkg.signRequest, 'function');
    assert.ok(pkg.subscribableEventTypes.includes('customer.created'));
    for (const name of Object.keys(receiver)) assert.ok(name in pkg, `the root re-exports receiver's ${name}`);
  });

  it('points "exports", "types" and "bin" at what `npm run build` emits, with declarations', () => {
    const config = buildConfig();
    assert.deepEqual(config.errors, []);
    assert.equal(config.options.declaration, true, 'tsconfig.build.json emits .d.ts files');
    assert.notEqual(config.options.noEmit, true);
    const sources = new Set(config.fileNames.map((f) => relative(root, f)));
    const expected: Record<string, string> = { '.': 'src/index.ts', './receiver': 'src/receiver/index.ts' };
    for (const [subpath, source] of Object.entries(expected)) {
      assert.ok(sources.has(source), `${source} is part of the build`);
      const target = manifest.exports[subpath];
      assert.ok(target && typeof target === 'object', `exports["${subpath}"]`);
      const out = emitted(source, config.options);
      assert.equal(target.default, out.js, `exports["${subpath}"].default`);
      assert.equal(target.types, out.dts, `exports["${subpath}"].types`);
      assert.equal(Object.keys(target)[0], 'types', '"types" comes first, as TypeScript requires');
    }
    assert.equal(manifest.types, emitted('src/index.ts', config.options).dts);
    // The bin prefers the build output and falls back to the sources; both must be where it looks.
    const bin = readFileSync(join(root, manifest.bin.herald ?? ''), 'utf8');
    assert.ok(bin.startsWith('#!/usr/bin/env node\n'));
    assert.ok(statSync(join(root, manifest.bin.herald ?? '')).mode & 0o100, 'the bin is executable');
    const cli = emitted('src/cli/main.ts', config.options).js.replace(/^\.\//, '../');
    assert.ok(bin.includes(`'${cli}'`), `bin/herald.mjs imports ${cli}`);
    assert.ok(bin.includes(`'../src/cli/main.ts'`) && existsSync(join(root, 'src/cli/main.ts')));
  });
});
